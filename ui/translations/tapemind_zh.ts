<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>tapemind</name>
    <message>
        <source>&amp;Accept</source>
        <translation>接受(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Always allow</source>
        <translation>始终允许(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Deny</source>
        <translation>拒绝(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Edit and accept…</source>
        <translation>编辑后接受(&amp;E)…</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Find skills</source>
        <translation>发现技能(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Merge…</source>
        <translation>合并(&amp;M)…</translation>
    </message>
    <message>
        <source>&amp;Reject</source>
        <translation>拒绝(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Review…</source>
        <translation>审查(&amp;R)…</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>(erased)</source>
        <translation>（已擦除）</translation>
    </message>
    <message>
        <source>(forgotten)</source>
        <translation>（已遗忘）</translation>
    </message>
    <message>
        <source>(forgotten: the text was removed)</source>
        <translation>（已遗忘：内容已删除）</translation>
    </message>
    <message>
        <source>1 year</source>
        <translation>1 年</translation>
    </message>
    <message>
        <source>30 days</source>
        <translation>30 天</translation>
    </message>
    <message>
        <source>7 days</source>
        <translation>7 天</translation>
    </message>
    <message>
        <source>90 days</source>
        <translation>90 天</translation>
    </message>
    <message>
        <source>A name for the agent (letters, digits, '.', '-' or '_'):</source>
        <translation>智能体名称（字母、数字、“.”、“-”或“_”）：</translation>
    </message>
    <message>
        <source>A secret request waits for your answer</source>
        <translation>有 1 个机密请求等待你的答复</translation>
    </message>
    <message>
        <source>Accept edited skill</source>
        <translation>接受编辑后的技能</translation>
    </message>
    <message>
        <source>Accepted: agents now get the skill {name}.</source>
        <translation>已接受：智能体现在可以获得技能 {name}。</translation>
    </message>
    <message>
        <source>Active memories</source>
        <translation>活跃记忆</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Add a secret</source>
        <translation>添加密钥</translation>
    </message>
    <message>
        <source>Add agent…</source>
        <translation>添加智能体…</translation>
    </message>
    <message>
        <source>Add an agent</source>
        <translation>添加智能体</translation>
    </message>
    <message>
        <source>Add an agent to give it a tape and memories.</source>
        <translation>添加一个智能体，为它建立磁带和记忆。</translation>
    </message>
    <message>
        <source>Added {when} · {entries} in {threads} · {memories}</source>
        <translation>添加于 {when} · {threads}中共 {entries} · {memories}</translation>
    </message>
    <message>
        <source>Added {when} · {entries} tape entries in {threads} threads · {memories} memories</source>
        <translation>添加于 {when} · {threads} 个线程中 {entries} 条磁带记录 · {memories} 条记忆</translation>
    </message>
    <message>
        <source>Add…</source>
        <translation>添加…</translation>
    </message>
    <message>
        <source>After an upgrade this can take a minute, once.</source>
        <translation>升级后首次打开可能需要一分钟，仅此一次。</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>智能体</translation>
    </message>
    <message>
        <source>Agent {agent}</source>
        <translation>智能体 {agent}</translation>
    </message>
    <message>
        <source>Agent {agent} · open for {age}</source>
        <translation>智能体 {agent} · 已等待 {age}</translation>
    </message>
    <message>
        <source>Agents</source>
        <translation>智能体</translation>
    </message>
    <message>
        <source>Agents can still reach their memories. Open the app or quit from this icon.</source>
        <translation>智能体仍可访问它们的记忆。可从此图标打开应用或退出。</translation>
    </message>
    <message>
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>All agents</source>
        <translation>全部智能体</translation>
    </message>
    <message>
        <source>All categories</source>
        <translation>全部类别</translation>
    </message>
    <message>
        <source>All statuses</source>
        <translation>全部状态</translation>
    </message>
    <message>
        <source>Allow &amp;once</source>
        <translation>允许一次(&amp;O)</translation>
    </message>
    <message>
        <source>Allow for an &amp;hour</source>
        <translation>1 小时内允许(&amp;H)</translation>
    </message>
    <message>
        <source>Allow for an hour</source>
        <translation>1 小时内允许</translation>
    </message>
    <message>
        <source>Allow once</source>
        <translation>允许一次</translation>
    </message>
    <message>
        <source>Allow this &amp;session</source>
        <translation>本次会话允许(&amp;S)</translation>
    </message>
    <message>
        <source>Allow this session</source>
        <translation>本次会话允许</translation>
    </message>
    <message>
        <source>Always allow</source>
        <translation>始终允许</translation>
    </message>
    <message>
        <source>Answer…</source>
        <translation>去答复…</translation>
    </message>
    <message>
        <source>Appearance</source>
        <translation>外观</translation>
    </message>
    <message>
        <source>Arbiter</source>
        <translation>仲裁器</translation>
    </message>
    <message>
        <source>Arbiter's reason</source>
        <translation>仲裁理由</translation>
    </message>
    <message>
        <source>Archive</source>
        <translation>归档</translation>
    </message>
    <message>
        <source>Archive candidates</source>
        <translation>归档候选</translation>
    </message>
    <message>
        <source>Archived</source>
        <translation>已归档</translation>
    </message>
    <message>
        <source>Archived ({n})</source>
        <translation>已归档（{n}）</translation>
    </message>
    <message>
        <source>Archived memories are not recalled on their own; restore brings them back.</source>
        <translation>已归档的记忆不会被自动召回；恢复后即可再次使用。</translation>
    </message>
    <message>
        <source>Archived within a week unless recalled, used or kept: their strength falls below {threshold:g} after {days:g}+ idle days. Keep the ones that matter.</source>
        <translation>一周内将被归档，除非被召回、使用或保留：闲置 {days:g} 天以上后，它们的强度会低于 {threshold:g}。请保留仍然重要的记忆。</translation>
    </message>
    <message>
        <source>Around entry #{id} in thread {thread}</source>
        <translation>线程 {thread} 中条目 #{id} 附近</translation>
    </message>
    <message>
        <source>Both stay active: they are both true</source>
        <translation>两条都保持活跃：它们都成立</translation>
    </message>
    <message>
        <source>Bring back…</source>
        <translation>找回…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Change the name, the description or the steps; cite memories as [m12]. Ctrl+Enter accepts.</source>
        <translation>可修改名称、描述或步骤；用 [m12] 引用记忆。按 Ctrl+Enter 接受。</translation>
    </message>
    <message>
        <source>Changes to the grown skill</source>
        <translation>对已有技能的改动</translation>
    </message>
    <message>
        <source>Children</source>
        <translation>子记忆</translation>
    </message>
    <message>
        <source>Choose a passphrase for the new vault:</source>
        <translation>为新保险库设置口令：</translation>
    </message>
    <message>
        <source>Choose an agent and press Find skills: lessons, outcomes and preferences that recur or are used together become skills for you to review.</source>
        <translation>选择一个智能体并点击“发现技能”：反复出现或被一起使用的经验、任务结果和偏好会成为技能，等你审查。</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <source>Conflict #{id} is open again: decide again.</source>
        <translation>冲突 #{id} 已重新打开：请再次裁决。</translation>
    </message>
    <message>
        <source>Conflict #{id} settled: both memories merged into one.</source>
        <translation>冲突 #{id} 已裁决：两条记忆已合并为一条。</translation>
    </message>
    <message>
        <source>Conflict #{id} settled: kept both memories.</source>
        <translation>冲突 #{id} 已裁决：两条记忆都保留。</translation>
    </message>
    <message>
        <source>Conflict #{id} settled: kept the existing memory, the new one is superseded.</source>
        <translation>冲突 #{id} 已裁决：保留已有记忆，新记忆已被取代。</translation>
    </message>
    <message>
        <source>Conflict #{id} settled: kept the new memory, the existing one is superseded.</source>
        <translation>冲突 #{id} 已裁决：保留新记忆，已有记忆已被取代。</translation>
    </message>
    <message>
        <source>Conflict #{id} · {pos} of {n} open</source>
        <translation>冲突 #{id} · 待解决 {pos} / {n}</translation>
    </message>
    <message>
        <source>Conflict {pos} of {n}</source>
        <translation>冲突 {pos} / {n}</translation>
    </message>
    <message>
        <source>Conflicts</source>
        <translation>冲突</translation>
    </message>
    <message>
        <source>Conflicts you settle are listed here to reopen.</source>
        <translation>你裁决过的冲突会列在这里，可以重新打开。</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy MCP configuration…</source>
        <translation>复制 MCP 配置…</translation>
    </message>
    <message>
        <source>Create</source>
        <translation>创建</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>创建时间</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Dashboard</source>
        <translation>仪表盘</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>裁决</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>描述</translation>
    </message>
    <message>
        <source>Double-click a conflict (or select it and press Enter) to review it side by side.</source>
        <translation>双击一个冲突（或选中后按回车）即可并排审查。</translation>
    </message>
    <message>
        <source>Double-click a proposal (or select it and press Enter) to review it beside its evidence.</source>
        <translation>双击一条提议（或选中后按回车），在其证据旁审查它。</translation>
    </message>
    <message>
        <source>Draft</source>
        <translation>草稿</translation>
    </message>
    <message>
        <source>Due</source>
        <translation>到期</translation>
    </message>
    <message>
        <source>Edit memory #{id}</source>
        <translation>编辑记忆 #{id}</translation>
    </message>
    <message>
        <source>Edit the merged text; both memories are replaced by it. Ctrl+Enter saves.</source>
        <translation>编辑合并后的内容；两条记忆都将被它取代。按 Ctrl+Enter 保存。</translation>
    </message>
    <message>
        <source>Edit the skill</source>
        <translation>编辑技能</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>编辑…</translation>
    </message>
    <message>
        <source>Embedder</source>
        <translation>嵌入模型</translation>
    </message>
    <message>
        <source>Embedder (whole home)</source>
        <translation>向量模型（整个数据目录）</translation>
    </message>
    <message>
        <source>Every conflict in the queue is settled.</source>
        <translation>队列中的冲突都已裁决。</translation>
    </message>
    <message>
        <source>Every proposed skill is reviewed.</source>
        <translation>所有提议的技能都已审查。</translation>
    </message>
    <message>
        <source>Every read by this agent for the next hour, then it asks again.</source>
        <translation>此后 1 小时内该智能体的每次读取都允许，之后需要再次请求。</translation>
    </message>
    <message>
        <source>Every secret is encrypted again under a new key.</source>
        <translation>所有密钥都将用新的密钥重新加密。</translation>
    </message>
    <message>
        <source>Evidence on the tape</source>
        <translation>磁带上的证据</translation>
    </message>
    <message>
        <source>Evidence: the memories and their tape entries</source>
        <translation>证据：记忆及其磁带条目</translation>
    </message>
    <message>
        <source>Existing memory</source>
        <translation>已有记忆</translation>
    </message>
    <message>
        <source>Fading</source>
        <translation>即将归档</translation>
    </message>
    <message>
        <source>Fading ({n})</source>
        <translation>即将归档（{n}）</translation>
    </message>
    <message>
        <source>Filter the loaded memories…</source>
        <translation>筛选已加载的记忆…</translation>
    </message>
    <message>
        <source>Filter this thread…</source>
        <translation>筛选此线程…</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Forget</source>
        <translation>遗忘</translation>
    </message>
    <message>
        <source>Forget memory #{id}?</source>
        <translation>遗忘记忆 #{id}？</translation>
    </message>
    <message>
        <source>Forget…</source>
        <translation>遗忘…</translation>
    </message>
    <message>
        <source>Grants</source>
        <translation>授权</translation>
    </message>
    <message>
        <source>Group this agent's memories and propose skills</source>
        <translation>归纳该智能体的记忆并提出技能</translation>
    </message>
    <message>
        <source>Grown skills</source>
        <translation>已形成的技能</translation>
    </message>
    <message>
        <source>Half-life</source>
        <translation>半衰期</translation>
    </message>
    <message>
        <source>Half-life: how fast an unused memory fades. Recall budget: how many tokens of memories an agent gets per turn. Permission mode: how the agent's requests for secrets are answered.</source>
        <translation>半衰期：未使用的记忆衰减得多快。召回预算：智能体每轮可获得多少词元的记忆。权限模式：如何答复智能体对密钥的请求。</translation>
    </message>
    <message>
        <source>How strong the memory is now: 1.00 when it was written, recalled or used, then halving over the agent's half-life (slower for important and often-used memories). Maintenance archives it once it fades below the agent's threshold.</source>
        <translation>记忆现在的强度：写入、被召回或被使用时为 1.00，之后按智能体的半衰期减半（重要的、常被使用的记忆衰减得更慢）。低于智能体的阈值后，维护会将它归档。</translation>
    </message>
    <message>
        <source>Hybrid search is not available in this version.</source>
        <translation>此版本暂不支持混合搜索。</translation>
    </message>
    <message>
        <source>ID</source>
        <translation>编号</translation>
    </message>
    <message>
        <source>Importance</source>
        <translation>重要性</translation>
    </message>
    <message>
        <source>Insights</source>
        <translation>技能洞察</translation>
    </message>
    <message>
        <source>It contains the agent's token: paste it only into that agent's client.</source>
        <translation>其中包含该智能体的令牌：只粘贴到该智能体的客户端中。</translation>
    </message>
    <message>
        <source>It should not have been replaced: review it against what replaced it</source>
        <translation>它不该被取代：与取代它的记忆放在一起审查</translation>
    </message>
    <message>
        <source>Its text is removed everywhere. A fingerprint stays so that it is not learned again. This cannot be undone.</source>
        <translation>它的内容将被彻底删除，仅保留指纹以免再次学习。此操作无法撤销。</translation>
    </message>
    <message>
        <source>Its value and grants are deleted and its pending requests denied.</source>
        <translation>它的值和授权将被删除，待处理的请求将被拒绝。</translation>
    </message>
    <message>
        <source>Keep &amp;both</source>
        <translation>两者都保留(&amp;B)</translation>
    </message>
    <message>
        <source>Keep &amp;new</source>
        <translation>保留新的(&amp;N)</translation>
    </message>
    <message>
        <source>Keep &amp;old</source>
        <translation>保留旧的(&amp;O)</translation>
    </message>
    <message>
        <source>Keep selected</source>
        <translation>保留所选</translation>
    </message>
    <message>
        <source>Keep this skill as drafted; agents get it</source>
        <translation>按草稿保留这个技能；智能体将获得它</translation>
    </message>
    <message>
        <source>Kept both</source>
        <translation>两者都保留</translation>
    </message>
    <message>
        <source>Kept the existing memory</source>
        <translation>保留已有记忆</translation>
    </message>
    <message>
        <source>Kept the new memory</source>
        <translation>保留新记忆</translation>
    </message>
    <message>
        <source>Key store: {where} · {n} secrets · {g} active grants</source>
        <translation>密钥存储：{where} · {n} 个密钥 · {g} 个有效授权</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>LLM (OpenAI-compatible)</source>
        <translation>大模型（OpenAI 兼容接口）</translation>
    </message>
    <message>
        <source>LLM (model@URL)</source>
        <translation>大模型（模型@地址）</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Last active</source>
        <translation>最近活跃</translation>
    </message>
    <message>
        <source>Last recalled</source>
        <translation>最近召回</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>MCP configuration for {agent}</source>
        <translation>{agent} 的 MCP 配置</translation>
    </message>
    <message>
        <source>Maintenance archived {n} faded memories at {time} ({whose}): unrecalled and unused for a while. &lt;a href='archive' style='color:{link}'&gt;See the Archive&lt;/a&gt;</source>
        <translation>例行维护于 {time} 归档了 {n} 条已淡化的记忆（{whose}）：它们已有一段时间未被召回或使用。&lt;a href='archive' style='color:{link}'&gt;打开归档&lt;/a&gt;</translation>
    </message>
    <message>
        <source>Maintenance last archived {n} memories on {time}: their strength had fallen below {threshold:g} after {days:g}+ idle days.</source>
        <translation>例行维护上次于 {time} 归档了 {n} 条记忆：闲置 {days:g} 天以上后，它们的强度降到了 {threshold:g} 以下。</translation>
    </message>
    <message>
        <source>Memories</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>Merge into one memory</source>
        <translation>合并为一条记忆</translation>
    </message>
    <message>
        <source>Merged</source>
        <translation>已合并</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Ne&amp;xt ▶</source>
        <translation>下一个(&amp;X) ▶</translation>
    </message>
    <message>
        <source>Never recalled</source>
        <translation>从未被召回</translation>
    </message>
    <message>
        <source>New memory</source>
        <translation>新记忆</translation>
    </message>
    <message>
        <source>Next conflict (Alt+Right)</source>
        <translation>下一个冲突（Alt+→）</translation>
    </message>
    <message>
        <source>No agents yet</source>
        <translation>还没有智能体</translation>
    </message>
    <message>
        <source>No memory selected</source>
        <translation>未选择记忆</translation>
    </message>
    <message>
        <source>No open conflicts</source>
        <translation>没有未解决的冲突</translation>
    </message>
    <message>
        <source>No proposals waiting</source>
        <translation>没有等待审查的提议</translation>
    </message>
    <message>
        <source>No proposed skills</source>
        <translation>没有待审查的技能</translation>
    </message>
    <message>
        <source>No requests are waiting.</source>
        <translation>没有等待中的请求。</translation>
    </message>
    <message>
        <source>No settled conflicts</source>
        <translation>没有已裁决的冲突</translation>
    </message>
    <message>
        <source>No snapshots in this range yet.</source>
        <translation>此时间范围内还没有快照。</translation>
    </message>
    <message>
        <source>No snapshots stored in this range yet: the trends start with today's figures.</source>
        <translation>此时间范围内还没有保存的快照：趋势从今天的数据开始。</translation>
    </message>
    <message>
        <source>No turn</source>
        <translation>无轮次</translation>
    </message>
    <message>
        <source>Not available in this version</source>
        <translation>此版本暂不可用</translation>
    </message>
    <message>
        <source>Nothing archived: every memory of this agent is active.</source>
        <translation>没有归档内容：该智能体的记忆都处于活跃状态。</translation>
    </message>
    <message>
        <source>Nothing is fading: every active memory was recalled or used lately.</source>
        <translation>没有即将归档的记忆：所有活跃记忆最近都被召回或使用过。</translation>
    </message>
    <message>
        <source>Only the memories waiting to be embedded (full-text search finds them meanwhile)</source>
        <translation>只显示等待嵌入的记忆（在此期间全文搜索仍能找到它们）</translation>
    </message>
    <message>
        <source>Open Tapemind</source>
        <translation>打开 Tapemind</translation>
    </message>
    <message>
        <source>Open conflicts</source>
        <translation>未解决冲突</translation>
    </message>
    <message>
        <source>Open conflicts: {n}</source>
        <translation>未解决冲突：{n}</translation>
    </message>
    <message>
        <source>Open for</source>
        <translation>已等待</translation>
    </message>
    <message>
        <source>Open the tape around this entry</source>
        <translation>打开该条目附近的磁带</translation>
    </message>
    <message>
        <source>Opening your Tapemind home…</source>
        <translation>正在打开 Tapemind 主目录…</translation>
    </message>
    <message>
        <source>Parents</source>
        <translation>父记忆</translation>
    </message>
    <message>
        <source>Pending requests</source>
        <translation>待处理请求</translation>
    </message>
    <message>
        <source>Pending requests: {n}</source>
        <translation>待批准请求：{n}</translation>
    </message>
    <message>
        <source>Permission mode</source>
        <translation>权限模式</translation>
    </message>
    <message>
        <source>Pick a memory in the list.</source>
        <translation>请在列表中选择一条记忆。</translation>
    </message>
    <message>
        <source>Pick an entry to read it in full.</source>
        <translation>选择一个条目以查看全文。</translation>
    </message>
    <message>
        <source>Port {port} is taken by another program: agents reach this home at {url}/mcp. Agents → Copy MCP configuration… and `tapemind agent token` name it.</source>
        <translation>端口 {port} 已被其他程序占用：智能体请通过 {url}/mcp 访问此数据目录。“智能体 → 复制 MCP 配置…”和 `tapemind agent token` 给出的都是这个地址。</translation>
    </message>
    <message>
        <source>Previous conflict (Alt+Left)</source>
        <translation>上一个冲突（Alt+←）</translation>
    </message>
    <message>
        <source>Proposal {pos} of {n}: {name}</source>
        <translation>第 {pos} / {n} 条提议：{name}</translation>
    </message>
    <message>
        <source>Proposed</source>
        <translation>提出时间</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>Range</source>
        <translation>时间范围</translation>
    </message>
    <message>
        <source>Re&amp;open</source>
        <translation>重新打开(&amp;O)</translation>
    </message>
    <message>
        <source>Reading {agent}'s memories…</source>
        <translation>正在读取 {agent} 的记忆…</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>理由</translation>
    </message>
    <message>
        <source>Reason: {reason}</source>
        <translation>理由：{reason}</translation>
    </message>
    <message>
        <source>Recall budget</source>
        <translation>召回预算</translation>
    </message>
    <message>
        <source>Recalls</source>
        <translation>召回次数</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Reinforce them now: they stay active and fade again only after a new idle spell.</source>
        <translation>立即强化：它们保持活跃，要再闲置一段时间才会再次淡出。</translation>
    </message>
    <message>
        <source>Rejected: {name} is not proposed again.</source>
        <translation>已拒绝：{name} 不会再被提出。</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Remove secret {name}?</source>
        <translation>删除密钥 {name}？</translation>
    </message>
    <message>
        <source>Remove…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Reopen the conflict just settled and decide again</source>
        <translation>重新打开刚裁决的冲突，再决定一次</translation>
    </message>
    <message>
        <source>Reopening…</source>
        <translation>正在重新打开…</translation>
    </message>
    <message>
        <source>Replace a secret</source>
        <translation>替换密钥</translation>
    </message>
    <message>
        <source>Replace value…</source>
        <translation>替换值…</translation>
    </message>
    <message>
        <source>Restore selected</source>
        <translation>恢复所选</translation>
    </message>
    <message>
        <source>Restoring is not available in this version.</source>
        <translation>此版本暂不支持恢复。</translation>
    </message>
    <message>
        <source>Reveal</source>
        <translation>查看</translation>
    </message>
    <message>
        <source>Reveal {name}?</source>
        <translation>查看 {name}？</translation>
    </message>
    <message>
        <source>Reveal…</source>
        <translation>查看…</translation>
    </message>
    <message>
        <source>Review conflict</source>
        <translation>审查冲突</translation>
    </message>
    <message>
        <source>Review proposed skill</source>
        <translation>审查提议的技能</translation>
    </message>
    <message>
        <source>Reviewer</source>
        <translation>审查</translation>
    </message>
    <message>
        <source>Reviewer: {verdict}</source>
        <translation>审查结论：{verdict}</translation>
    </message>
    <message>
        <source>Rotate</source>
        <translation>轮换</translation>
    </message>
    <message>
        <source>Rotate key…</source>
        <translation>轮换密钥…</translation>
    </message>
    <message>
        <source>Rotate the vault key?</source>
        <translation>轮换保险库密钥？</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Save merged memory</source>
        <translation>保存合并后的记忆</translation>
    </message>
    <message>
        <source>Save new version</source>
        <translation>保存为新版本</translation>
    </message>
    <message>
        <source>Save settings</source>
        <translation>保存设置</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>已保存。</translation>
    </message>
    <message>
        <source>Saving makes a new version; the old text stays in the history.</source>
        <translation>保存会生成新版本；旧内容保留在历史中。</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>正在保存…</translation>
    </message>
    <message>
        <source>Search memories…</source>
        <translation>搜索记忆…</translation>
    </message>
    <message>
        <source>Search this agent's tape…</source>
        <translation>搜索该智能体的磁带…</translation>
    </message>
    <message>
        <source>Secret requested</source>
        <translation>密钥请求</translation>
    </message>
    <message>
        <source>Secret value</source>
        <translation>密钥的值</translation>
    </message>
    <message>
        <source>Secret values are never shown here; agents get them only by request.</source>
        <translation>这里从不显示密钥的值；智能体只能通过请求获得。</translation>
    </message>
    <message>
        <source>Secrets</source>
        <translation>密钥</translation>
    </message>
    <message>
        <source>Secrets pending approval</source>
        <translation>待批准的密钥请求</translation>
    </message>
    <message>
        <source>Select a settled conflict and press Reopen to decide it again.</source>
        <translation>选中一个已裁决的冲突，按“重新打开”即可再次裁决。</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Settings not saved</source>
        <translation>设置未保存</translation>
    </message>
    <message>
        <source>Settled</source>
        <translation>裁决时间</translation>
    </message>
    <message>
        <source>Show &amp;changes</source>
        <translation>显示改动(&amp;C)</translation>
    </message>
    <message>
        <source>Show &amp;settled</source>
        <translation>显示已裁决(&amp;S)</translation>
    </message>
    <message>
        <source>Show the whole thread</source>
        <translation>显示整个线程</translation>
    </message>
    <message>
        <source>Skill</source>
        <translation>技能</translation>
    </message>
    <message>
        <source>Skills to review</source>
        <translation>待审查的技能</translation>
    </message>
    <message>
        <source>Source tape entries</source>
        <translation>来源磁带条目</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步骤数</translation>
    </message>
    <message>
        <source>Strength</source>
        <translation>强度</translation>
    </message>
    <message>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>Tape</source>
        <translation>磁带</translation>
    </message>
    <message>
        <source>Tape entries</source>
        <translation>磁带条目</translation>
    </message>
    <message>
        <source>Tapemind</source>
        <translation>Tapemind 记忆磁带</translation>
    </message>
    <message>
        <source>Tapemind is still running</source>
        <translation>Tapemind 仍在运行</translation>
    </message>
    <message>
        <source>Text</source>
        <translation>内容</translation>
    </message>
    <message>
        <source>The changes to the grown skill's current version</source>
        <translation>相对于该技能当前版本的改动</translation>
    </message>
    <message>
        <source>The existing memory stays; the new one is superseded (Undo takes it back)</source>
        <translation>保留已有记忆；新记忆被取代（可撤销）</translation>
    </message>
    <message>
        <source>The merged text is empty; nothing was changed.</source>
        <translation>合并后的内容为空；没有做任何更改。</translation>
    </message>
    <message>
        <source>The new memory stays; the existing one is superseded (Undo takes it back)</source>
        <translation>保留新记忆；已有记忆被取代（可撤销）</translation>
    </message>
    <message>
        <source>The value is shown on screen until you close this window. The read is audited.</source>
        <translation>值会显示在屏幕上，直到你关闭此窗口。此次读取会被审计。</translation>
    </message>
    <message>
        <source>The vault is locked. Passphrase:</source>
        <translation>保险库已锁定。口令：</translation>
    </message>
    <message>
        <source>The vault is locked: {problem}</source>
        <translation>保险库已锁定：{problem}</translation>
    </message>
    <message>
        <source>These memories are not proposed again</source>
        <translation>这些记忆不会再被提出</translation>
    </message>
    <message>
        <source>This agent has no tape yet.</source>
        <translation>该智能体还没有磁带记录。</translation>
    </message>
    <message>
        <source>This agent's connection has no session, so a grant for this session would never apply: allow once, for an hour, or always.</source>
        <translation>该智能体的连接没有会话，“本次会话”的授权永远不会生效：请选择允许一次、1 小时内允许或始终允许。</translation>
    </message>
    <message>
        <source>This computer does not have the vault key. On a computer that has it, run `tapemind vault export-key --to FILE`; copy the file here and run `tapemind vault import-key FILE`.</source>
        <translation>这台电脑没有保险库密钥。请在有密钥的电脑上运行 `tapemind vault export-key --to FILE`，把文件复制到这里，再运行 `tapemind vault import-key FILE`。</translation>
    </message>
    <message>
        <source>This engine does not report it yet.</source>
        <translation>当前引擎尚未提供此数据。</translation>
    </message>
    <message>
        <source>This engine keeps no health snapshots yet; the cards above are live counts.</source>
        <translation>当前引擎尚未保存健康快照；上方卡片为实时统计。</translation>
    </message>
    <message>
        <source>This version of the Tapemind engine does not offer {feature} yet.</source>
        <translation>此版本的 Tapemind 引擎尚未提供{feature}。</translation>
    </message>
    <message>
        <source>Thread</source>
        <translation>会话线程</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Time left</source>
        <translation>剩余时间</translation>
    </message>
    <message>
        <source>Trends</source>
        <translation>趋势</translation>
    </message>
    <message>
        <source>Trends are not available in this version</source>
        <translation>此版本暂无趋势图</translation>
    </message>
    <message>
        <source>Turn {turn}</source>
        <translation>轮次 {turn}</translation>
    </message>
    <message>
        <source>Undo the decision: the conflict waits for you again, both memories active</source>
        <translation>撤销这次裁决：冲突重新等你决定，两条记忆都恢复为活跃</translation>
    </message>
    <message>
        <source>Unembedded</source>
        <translation>未嵌入</translation>
    </message>
    <message>
        <source>Unlock</source>
        <translation>解锁</translation>
    </message>
    <message>
        <source>Updated</source>
        <translation>更新时间</translation>
    </message>
    <message>
        <source>Uses</source>
        <translation>使用次数</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Values stay hidden in the list: Reveal… shows one after asking, and the read is audited. Agents get a value only by request.</source>
        <translation>列表中不显示机密的值：“查看…”会先确认再显示，并记入审计。智能体只能通过请求获得机密。</translation>
    </message>
    <message>
        <source>Vault</source>
        <translation>保险库</translation>
    </message>
    <message>
        <source>Vault passphrase</source>
        <translation>保险库口令</translation>
    </message>
    <message>
        <source>Version</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>Versions</source>
        <translation>版本历史</translation>
    </message>
    <message>
        <source>When two memories disagree, they wait here for you.</source>
        <translation>两条记忆相互矛盾时，会在这里等你裁决。</translation>
    </message>
    <message>
        <source>Who</source>
        <translation>角色</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Write one memory that replaces both</source>
        <translation>写一条记忆取代这两条</translation>
    </message>
    <message>
        <source>Written by</source>
        <translation>撰写者</translation>
    </message>
    <message>
        <source>a memory the skill rests on was forgotten or superseded</source>
        <translation>技能所依据的某条记忆已被遗忘或取代</translation>
    </message>
    <message>
        <source>active</source>
        <translation>活跃</translation>
    </message>
    <message>
        <source>agent</source>
        <translation>智能体</translation>
    </message>
    <message>
        <source>agent's setting</source>
        <translation>沿用智能体设置</translation>
    </message>
    <message>
        <source>all active</source>
        <translation>全部活跃</translation>
    </message>
    <message>
        <source>always</source>
        <translation>始终</translation>
    </message>
    <message>
        <source>anchor</source>
        <translation>锚点</translation>
    </message>
    <message>
        <source>archived</source>
        <translation>已归档</translation>
    </message>
    <message>
        <source>archived at the next maintenance</source>
        <translation>将在下次维护时归档</translation>
    </message>
    <message>
        <source>ask</source>
        <translation>询问</translation>
    </message>
    <message>
        <source>assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>candidates: not available in this version</source>
        <translation>候选：此版本暂不可用</translation>
    </message>
    <message>
        <source>comma-separated, e.g. staging, db</source>
        <translation>用逗号分隔，例如 staging, db</translation>
    </message>
    <message>
        <source>command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>compact</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>conflict review</source>
        <translation>冲突审查</translation>
    </message>
    <message>
        <source>current</source>
        <translation>有效</translation>
    </message>
    <message>
        <source>days</source>
        <translation>天</translation>
    </message>
    <message>
        <source>derived</source>
        <translation>派生</translation>
    </message>
    <message>
        <source>e.g. claude-code</source>
        <translation>例如 claude-code</translation>
    </message>
    <message>
        <source>entries on the tape</source>
        <translation>条磁带记录</translation>
    </message>
    <message>
        <source>event</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>expired</source>
        <translation>已过期</translation>
    </message>
    <message>
        <source>file</source>
        <translation>配置文件</translation>
    </message>
    <message>
        <source>forgotten</source>
        <translation>已遗忘</translation>
    </message>
    <message>
        <source>importance {value}</source>
        <translation>重要度 {value}</translation>
    </message>
    <message>
        <source>index stalled: see below</source>
        <translation>索引停滞：见下方说明</translation>
    </message>
    <message>
        <source>index up to date</source>
        <translation>索引已是最新</translation>
    </message>
    <message>
        <source>insights</source>
        <translation>技能洞察</translation>
    </message>
    <message>
        <source>keyring</source>
        <translation>系统钥匙串</translation>
    </message>
    <message>
        <source>learned (offline, fitted on examples)</source>
        <translation>学习型（离线，由示例训练）</translation>
    </message>
    <message>
        <source>learned {time}</source>
        <translation>记住于 {time}</translation>
    </message>
    <message>
        <source>lesson</source>
        <translation>经验教训</translation>
    </message>
    <message>
        <source>llm</source>
        <translation>大模型</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>merged</source>
        <translation>合并</translation>
    </message>
    <message>
        <source>message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>m{m} is contradicted by m{o}</source>
        <translation>m{m} 与 m{o} 相矛盾</translation>
    </message>
    <message>
        <source>m{m} was edited</source>
        <translation>m{m} 已被编辑</translation>
    </message>
    <message>
        <source>m{m} was forgotten</source>
        <translation>m{m} 已被遗忘</translation>
    </message>
    <message>
        <source>m{m} was superseded by m{o}</source>
        <translation>m{m} 已被 m{o} 取代</translation>
    </message>
    <message>
        <source>never</source>
        <translation>从未</translation>
    </message>
    <message>
        <source>new skill</source>
        <translation>新技能</translation>
    </message>
    <message>
        <source>new version</source>
        <translation>新版本</translation>
    </message>
    <message>
        <source>new version of a grown skill</source>
        <translation>已有技能的新版本</translation>
    </message>
    <message>
        <source>next maintenance</source>
        <translation>下次维护时</translation>
    </message>
    <message>
        <source>no time limit</source>
        <translation>无时间限制</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>none due</source>
        <translation>没有即将归档的记忆</translation>
    </message>
    <message>
        <source>nothing to review</source>
        <translation>没有待审查的冲突</translation>
    </message>
    <message>
        <source>offline</source>
        <translation>离线</translation>
    </message>
    <message>
        <source>offline (no model)</source>
        <translation>离线（无需模型）</translation>
    </message>
    <message>
        <source>oldest waiting: {age}</source>
        <translation>最久等待：{age}</translation>
    </message>
    <message>
        <source>oldest: {age}</source>
        <translation>最久：{age}</translation>
    </message>
    <message>
        <source>once</source>
        <translation>一次</translation>
    </message>
    <message>
        <source>own words</source>
        <translation>记忆原话</translation>
    </message>
    <message>
        <source>owner</source>
        <translation>你</translation>
    </message>
    <message>
        <source>passphrase</source>
        <translation>口令</translation>
    </message>
    <message>
        <source>preference</source>
        <translation>偏好</translation>
    </message>
    <message>
        <source>project_fact</source>
        <translation>项目事实</translation>
    </message>
    <message>
        <source>proposed from the memories</source>
        <translation>从记忆中提出</translation>
    </message>
    <message>
        <source>proposed {time}</source>
        <translation>提出于 {time}</translation>
    </message>
    <message>
        <source>raised by the {arbiter} arbiter</source>
        <translation>由{arbiter}仲裁器提出</translation>
    </message>
    <message>
        <source>raised by you</source>
        <translation>由你提出</translation>
    </message>
    <message>
        <source>recalled by no agent yet</source>
        <translation>尚未被任何智能体召回</translation>
    </message>
    <message>
        <source>referenced</source>
        <translation>引用</translation>
    </message>
    <message>
        <source>requests waiting for you</source>
        <translation>等待你处理的请求</translation>
    </message>
    <message>
        <source>restore what still matters</source>
        <translation>可恢复仍然重要的记忆</translation>
    </message>
    <message>
        <source>review</source>
        <translation>审查</translation>
    </message>
    <message>
        <source>session</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>stale</source>
        <translation>已过时</translation>
    </message>
    <message>
        <source>superseded</source>
        <translation>已取代</translation>
    </message>
    <message>
        <source>supersedes</source>
        <translation>取代</translation>
    </message>
    <message>
        <source>system</source>
        <translation>系统</translation>
    </message>
    <message>
        <source>task_outcome</source>
        <translation>任务结果</translation>
    </message>
    <message>
        <source>the home's default</source>
        <translation>使用主目录默认值</translation>
    </message>
    <message>
        <source>the memories under the skill changed</source>
        <translation>技能所依据的记忆有了变化</translation>
    </message>
    <message>
        <source>the secret vault</source>
        <translation>密钥保险库</translation>
    </message>
    <message>
        <source>these memories form no skill yet</source>
        <translation>这些记忆尚未形成技能</translation>
    </message>
    <message>
        <source>to review</source>
        <translation>待审查</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>tool_call</source>
        <translation>工具调用</translation>
    </message>
    <message>
        <source>tool_result</source>
        <translation>工具结果</translation>
    </message>
    <message>
        <source>tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>until {time}</source>
        <translation>至 {time}</translation>
    </message>
    <message>
        <source>user</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>version</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>waiting {age}</source>
        <translation>已等待 {age}</translation>
    </message>
    <message>
        <source>written by the model {model}</source>
        <translation>由模型 {model} 撰写</translation>
    </message>
    <message>
        <source>written from the memories' own words</source>
        <translation>用记忆的原话写成</translation>
    </message>
    <message>
        <source>{agent} asks for {secret}</source>
        <translation>{agent} 请求 {secret}</translation>
    </message>
    <message>
        <source>{groups} groups found, {created} new proposals</source>
        <translation>找到 {groups} 组，新提议 {created} 条</translation>
    </message>
    <message>
        <source>{n} active memories</source>
        <translation>{n} 条活跃记忆</translation>
    </message>
    <message>
        <source>{n} active memory</source>
        <translation>{n} 条活跃记忆</translation>
    </message>
    <message>
        <source>{n} candidates</source>
        <translation>{n} 条候选</translation>
    </message>
    <message>
        <source>{n} d</source>
        <translation>{n} 天</translation>
    </message>
    <message>
        <source>{n} entries</source>
        <translation>{n} 个条目</translation>
    </message>
    <message>
        <source>{n} entries match “{query}”</source>
        <translation>{n} 个条目匹配“{query}”</translation>
    </message>
    <message>
        <source>{n} entry</source>
        <translation>{n} 个条目</translation>
    </message>
    <message>
        <source>{n} entry matches “{query}”</source>
        <translation>{n} 个条目匹配“{query}”</translation>
    </message>
    <message>
        <source>{n} grown skill to look at</source>
        <translation>{n} 个已有技能需要查看</translation>
    </message>
    <message>
        <source>{n} grown skills to look at</source>
        <translation>{n} 个已有技能需要查看</translation>
    </message>
    <message>
        <source>{n} h</source>
        <translation>{n} 小时</translation>
    </message>
    <message>
        <source>{n} in all</source>
        <translation>共 {n} 条</translation>
    </message>
    <message>
        <source>{n} memories</source>
        <translation>{n} 条记忆</translation>
    </message>
    <message>
        <source>{n} memories waiting to be embedded</source>
        <translation>{n} 条记忆等待嵌入</translation>
    </message>
    <message>
        <source>{n} memory</source>
        <translation>{n} 条记忆</translation>
    </message>
    <message>
        <source>{n} memory waiting to be embedded</source>
        <translation>{n} 条记忆等待嵌入</translation>
    </message>
    <message>
        <source>{n} min</source>
        <translation>{n} 分钟</translation>
    </message>
    <message>
        <source>{n} open</source>
        <translation>{n} 个待处理</translation>
    </message>
    <message>
        <source>{n} request waits for your answer.</source>
        <translation>{n} 个请求等待你的答复。</translation>
    </message>
    <message>
        <source>{n} requests wait for your answer.</source>
        <translation>{n} 个请求等待你的答复。</translation>
    </message>
    <message>
        <source>{n} s</source>
        <translation>{n} 秒</translation>
    </message>
    <message>
        <source>{n} secret requests wait for your answer</source>
        <translation>有 {n} 个机密请求等待你的答复</translation>
    </message>
    <message>
        <source>{n} settled</source>
        <translation>{n} 个已裁决</translation>
    </message>
    <message>
        <source>{n} skill to look at</source>
        <translation>{n} 个技能需要查看</translation>
    </message>
    <message>
        <source>{n} skills to look at</source>
        <translation>{n} 个技能需要查看</translation>
    </message>
    <message>
        <source>{n} step</source>
        <translation>{n} 个步骤</translation>
    </message>
    <message>
        <source>{n} steps</source>
        <translation>{n} 个步骤</translation>
    </message>
    <message>
        <source>{n} tape entries</source>
        <translation>{n} 条磁带记录</translation>
    </message>
    <message>
        <source>{n} tape entry</source>
        <translation>{n} 条磁带记录</translation>
    </message>
    <message>
        <source>{n} thread</source>
        <translation>{n} 个会话线程</translation>
    </message>
    <message>
        <source>{n} threads</source>
        <translation>{n} 个会话线程</translation>
    </message>
    <message>
        <source>{n} tool call or result (folded)</source>
        <translation>{n} 个工具调用与结果（已折叠）</translation>
    </message>
    <message>
        <source>{n} tool calls and results (folded)</source>
        <translation>{n} 个工具调用与结果（已折叠）</translation>
    </message>
    <message>
        <source>{n} waiting</source>
        <translation>{n} 条待审查</translation>
    </message>
    <message>
        <source>{n} {status}</source>
        <translation>{n} 条{status}</translation>
    </message>
    <message>
        <source>{shown} of {total} memories</source>
        <translation>显示 {shown} / 共 {total} 条记忆</translation>
    </message>
    <message>
        <source>{steps} from {memories}</source>
        <translation>{steps}，来自 {memories}</translation>
    </message>
    <message>
        <source>◀ &amp;Previous</source>
        <translation>◀ 上一个(&amp;P)</translation>
    </message>
</context>
</TS>
