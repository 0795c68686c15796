"""Hand-written translations of candidates, for the cross-language decision sets.

Each key is a candidate of decisions.jsonl (DEV) or decisions_holdout.jsonl (HOLDOUT), each value
the same memory written in the other language, the way a user or an agent would write it. The
case keeps its existing memories, expected action and target: the decision does not depend on the
language the candidate is written in. Cases whose decision would change in translation are not
used. Six cases per (action, direction) in DEV, three in HOLDOUT.
"""

DEV = {
    # ---- English cases, Chinese candidate
    # add
    "Prefers a large font size in the terminal.": "喜欢在终端里用大号字体。",
    "Alice is allergic to peanuts.": "Alice 对花生过敏。",
    "Bob's birthday is on July 12.": "Bob 的生日是 7 月 12 日。",
    "Always set a timeout on outgoing HTTP requests.": "对外的 HTTP 请求一定要设超时。",
    "The metrics exporter listens on port 9100.": "指标导出器监听 9100 端口。",
    "User sessions are stored in Redis with a 24 hour TTL.": (
        "用户会话存在 Redis 里，过期时间 24 小时。"
    ),
    # update
    "The frontend uses React 18 with TypeScript and Tailwind.": (
        "前端用的是 React 18，配合 TypeScript 和 Tailwind。"
    ),
    "Likes concise answers, and also wants code examples included when relevant.": (
        "喜欢简洁的回答，另外相关时还要附上代码示例。"
    ),
    "The mobile team meets on Mondays at 10am in room 4B.": (
        "移动组每周一上午 10 点在 4B 会议室开会。"
    ),
    "User prefers vim keybindings, especially in VS Code and the browser.": (
        "用户喜欢 vim 键位，尤其是在 VS Code 和浏览器里。"
    ),
    "Frank owns the billing service and is on call for it every other week.": (
        "Frank 负责计费服务，并且每隔一周值一次班。"
    ),
    "Staging is at staging.example.com, behind the company VPN.": (
        "预发环境在 staging.example.com，要连公司 VPN 才能访问。"
    ),
    # supersede
    "User switched to 4 spaces instead of tabs for indentation.": (
        "用户改用 4 个空格缩进，不再用 Tab 了。"
    ),
    "The backend was upgraded to Python 3.12.": "后端已经升级到 Python 3.12。",
    "Staging database is now PostgreSQL 16.": "预发数据库现在是 PostgreSQL 16。",
    "User switched to pytest for running tests.": "用户改用 pytest 跑测试了。",
    "Prefers Google Meet now instead of Zoom.": "现在开会更喜欢用 Google Meet，不用 Zoom 了。",
    "Max upload size was bumped to 25 MB.": "上传文件大小上限调到了 25 MB。",
    # duplicate
    "The user likes indenting with tabs.": "用户喜欢用 Tab 缩进。",
    "Our backend service is implemented in Go.": "我们的后端服务是用 Go 写的。",
    "Wants dark mode in all editors.": "所有编辑器都要用深色模式。",
    "The service runs on port 8080.": "服务跑在 8080 端口。",
    "The billing service is owned by Frank.": "计费服务由 Frank 负责。",
    "Secrets are kept in Vault.": "密钥都存放在 Vault 里。",
    # conflict
    "User prefers spaces for indentation.": "用户缩进喜欢用空格。",
    "The backend is written in Rust.": "后端是用 Rust 写的。",
    "Does not like dark mode.": "不喜欢深色模式。",
    "Production runs PostgreSQL 14.": "生产环境跑的是 PostgreSQL 14。",
    "The release is planned for March 17.": "版本计划 3 月 17 日发布。",
    "The team has 9 engineers.": "团队有 9 名工程师。",
    # ---- Chinese cases, English candidate
    # add
    "用户喜欢终端里用大号字体。": "The user likes a large font in the terminal.",
    "小王对花生过敏。": "Xiao Wang is allergic to peanuts.",
    "老李的生日是 7 月 12 日。": "Lao Li's birthday is July 12.",
    "对外的 HTTP 请求一定要设置超时。": "Outgoing HTTP requests must always have a timeout.",
    "监控指标导出器监听 9100 端口。": "The metrics exporter listens on port 9100.",
    "用户会话存放在 Redis 中，过期时间 24 小时。": (
        "User sessions are stored in Redis with a 24-hour expiry."
    ),
    # update
    "前端用 React 18，另外还用了 TypeScript 和 Tailwind。": (
        "The frontend uses React 18, plus TypeScript and Tailwind."
    ),
    "用户喜欢简洁的回答，相关时还要附上代码示例。": (
        "The user likes concise answers, with code examples attached when relevant."
    ),
    "移动组每周一上午十点在 4B 会议室开例会。": (
        "The mobile team has its weekly meeting on Mondays at 10am in room 4B."
    ),
    "用户喜欢 Vim 键位，尤其是在 VS Code 和浏览器里。": (
        "The user likes Vim keybindings, especially in VS Code and the browser."
    ),
    "老赵负责计费服务，并且每隔一周值班一次。": (
        "Lao Zhao is in charge of the billing service and is on call every other week."
    ),
    "预发环境地址是 staging.example.com，需要连公司 VPN 才能访问。": (
        "Staging is at staging.example.com and needs the company VPN to reach."
    ),
    # supersede
    "用户现在改用 VS Code 写代码了。": "The user now writes code in VS Code instead.",
    "用户不再用深色主题，换成了浅色主题。": (
        "The user no longer uses the dark theme and switched to a light one."
    ),
    "后端已经升级到 Python 3.12。": "The backend has been upgraded to Python 3.12.",
    "用户换成 pytest 跑测试了。": "The user switched to pytest for running tests.",
    "开会现在改用飞书会议。": "Meetings are now held on Feishu Meetings instead.",
    "上传文件大小上限调整为 50 MB。": "The upload size limit was changed to 50 MB.",
    # duplicate
    "用户喜欢用 Tab 来缩进。": "The user likes to indent with tabs.",
    "后端服务用 Go 语言实现。": "The backend service is implemented in Go.",
    "用户偏好深色主题。": "The user prefers a dark theme.",
    "服务跑在 8080 端口上。": "The service runs on port 8080.",
    "计费服务由老赵负责。": "The billing service is owned by Lao Zhao.",
    "密钥都保存在 Vault 中。": "Secrets are all kept in Vault.",
    # conflict
    "用户缩进习惯用空格。": "The user indents with spaces.",
    "后端是用 Rust 写的。": "The backend is written in Rust.",
    "用户不喜欢深色主题。": "The user doesn't like the dark theme.",
    "生产环境用 PostgreSQL 14。": "Production uses PostgreSQL 14.",
    "版本计划在 3 月 17 日发布。": "The release is planned for March 17.",
    "团队有 9 名工程师。": "The team has 9 engineers.",
}

HOLDOUT = {
    # ---- English cases, Chinese candidate
    "The marketing site is hosted on Netlify.": "营销网站托管在 Netlify 上。",
    "The user goes running every morning before work.": "用户每天早上上班前都会去跑步。",
    "User wants error messages quoted verbatim in replies.": "用户希望回复里原样引用错误信息。",
    "Logs are shipped to Elasticsearch via Filebeat, kept for 14 days.": (
        "日志通过 Filebeat 发到 Elasticsearch，保留 14 天。"
    ),
    "Secrets are stored in Vault under the kv/app path, rotated monthly.": (
        "密钥存放在 Vault 的 kv/app 路径下，每月轮换一次。"
    ),
    "User likes tables for comparisons, with the recommended option in bold.": (
        "用户做对比时喜欢用表格，推荐的选项要加粗。"
    ),
    "Deployments moved to Fly.io; Heroku is no longer used.": (
        "部署迁到了 Fly.io，不再用 Heroku 了。"
    ),
    "Bob now prefers email; he stopped using Slack.": "Bob 现在更喜欢用邮件联系，不再用 Slack 了。",
    "The service now listens on port 9000.": "服务现在监听 9000 端口。",
    "We deploy to Heroku.": "我们部署在 Heroku 上。",
    "The user is in the Europe/Berlin timezone.": "用户的时区是 Europe/Berlin。",
    "Do not force-push to main, ever.": "永远不要对 main 分支强制推送。",
    "The API rate limit is 300 requests per minute.": "接口限流是每分钟 300 次请求。",
    "Caching the query results did not make the report faster.": (
        "给查询结果加缓存并没有让报表变快。"
    ),
    "Feature flags live in Unleash.": "功能开关放在 Unleash 里。",
    # ---- Chinese cases, English candidate
    "官网托管在 Netlify 上。": "The official website is hosted on Netlify.",
    "用户每天早上上班前会去跑步。": "The user goes for a run every morning before work.",
    "用户希望回复里原样引用报错信息。": "The user wants error messages quoted as-is in replies.",
    "日志通过 Filebeat 发送到 Elasticsearch，保留 14 天。": (
        "Logs are sent to Elasticsearch via Filebeat and kept for 14 days."
    ),
    "密钥存放在 Vault 的 kv/app 路径下，每月轮换一次。": (
        "Secrets are stored in Vault under the kv/app path and rotated once a month."
    ),
    "用户做对比时喜欢用表格，并把推荐的选项加粗。": (
        "The user likes tables for comparisons, with the recommended option in bold."
    ),
    "项目已经迁移到腾讯云，不再用阿里云。": (
        "The project has moved to Tencent Cloud and no longer uses Alibaba Cloud."
    ),
    "老李现在只用钉钉沟通，不再用微信。": "Lao Li now only uses DingTalk, no longer WeChat.",
    "服务现在监听 9000 端口。": "The service now listens on port 9000.",
    "我们把项目部署在阿里云。": "We deploy the project on Alibaba Cloud.",
    "新人入职指南已经写完了。": "The onboarding guide for new hires is done.",
    "千万不要对 main 分支强制推送。": "Never force-push to the main branch.",
    "接口限流是每分钟 300 次。": "The API rate limit is 300 requests per minute.",
    "给查询结果加缓存后报表并没有变快。": (
        "Caching the query results did not make the report any faster."
    ),
    "功能开关放在 Unleash。": "Feature flags are kept in Unleash.",
}
