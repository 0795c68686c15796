"""English -> Chinese for the desktop app (source of translations/tapemind_zh.ts)."""

ZH: dict[str, str] = {
}
