/**
 * The password-hashing module: scrypt hashes for `basic-auth.users[].password` and
 * `tokens[].token-hash`, and the `vigil hash-password` command that makes them.
 */
export { hashPassword, isHashed, verifyPassword } from './scrypt-hash.js';
export { runHashPasswordCommand, type HashPasswordIo } from './hash-password-command.js';
