/**
 * Escapers for the formats channels write. Every value that came from a registration (name,
 * URLs, metadata) goes through one before it is put into a message, so `<!channel>` cannot ping a
 * Slack channel, `</b><script>` cannot end markup, `[x](https://evil)` cannot become a link and
 * `@everyone` cannot mention anyone. JSON channels need none: they build objects and stringify.
 */
export type Escape = (value: string) => string;

/** Text as is, for fields that are not markup (JSON strings, PagerDuty summaries, mail subjects). */
export const plain: Escape = (value) => value;

/** Slack mrkdwn: only `&`, `<` and `>` are control characters (https://api.slack.com/reference/surfaces/formatting#escaping). */
export const mrkdwn: Escape = (value) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const HTML: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** HTML text and attribute values (mail bodies, Telegram's HTML parse mode). */
export const html: Escape = (value) => value.replace(/[&<>"']/g, (char) => HTML[char]!);

/**
 * Markdown (Discord, Mattermost, Teams text blocks): a backslash before every character markdown
 * acts on, and a zero-width space after `@` so no mention (`@everyone`, `@channel`, `@all`) forms.
 */
export const markdown: Escape = (value) => value.replace(/[\\*_~`|>#<[\]()]/g, (char) => `\\${char}`).replace(/@/g, '@\u200b');

/**
 * Teams text blocks: Adaptive Cards render a small markdown subset and show backslashes as
 * typed, so instead a zero-width space breaks what could form a link (`](`) or a mention.
 */
export const teams: Escape = (value) => value.replace(/\]\(/g, ']\u200b(').replace(/@/g, '@\u200b').replace(/</g, '<\u200b');

/** One line: control characters (CR/LF in a mail subject, say) become spaces. */
export const oneLine: Escape = (value) => value.replace(/[\u0000-\u001f\u007f]+/g, ' ');
