/** What a secret is replaced with wherever it would be shown. */
export const MASK = '******';
