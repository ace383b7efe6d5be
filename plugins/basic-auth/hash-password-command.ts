import type { CommandIo, PluginCommand } from '../../core/plugin-api.js';
import { INTERRUPTED, LineInput } from './line-input.js';
import { hashPassword } from './scrypt-hash.js';

/** What the command reads and writes; on a terminal (`isTTY`) the password is asked for twice, with echo off if possible. */
export type HashPasswordIo = CommandIo;

/** `vigil hash-password`, as basic-auth brings it to the CLI. It takes no arguments. */
export const hashPasswordCommand: PluginCommand = {
  async run(args, io) {
    if (args.length > 0) {
      io.stderr.write('vigil: hash-password takes no arguments; it reads the password from stdin\n');
      return 1;
    }
    return runHashPasswordCommand(io);
  },
};

/**
 * `vigil hash-password`: reads a password (the first line of stdin, or typed at a prompt) and
 * prints its scrypt hash on stdout, alone on its line, so `vigil hash-password < file` can be
 * captured by scripts. Prompts and hints go to stderr. Returns the exit code.
 */
export async function runHashPasswordCommand(io: HashPasswordIo): Promise<number> {
  const input = new LineInput(io.stdin, io.isTTY);
  let password: string | undefined;
  try {
    const first = await ask(io, input, 'Password: ');
    if (first === INTERRUPTED) return 130;
    password = first;
    if (io.isTTY && password) {
      const again = await ask(io, input, 'Repeat password: ');
      if (again === INTERRUPTED) return 130;
      if (again !== password) {
        io.stderr.write('hash-password: the passwords do not match\n');
        return 1;
      }
    }
  } finally {
    input.close();
  }
  if (!password) {
    io.stderr.write('hash-password: no password given (type it at the prompt or send it as the first line of stdin)\n');
    return 1;
  }
  io.stdout.write(`${await hashPassword(password)}\n`);
  if (io.isTTY) io.stderr.write('Use it as a password (or token-hash) in the basic-auth section of the config, in quotes.\n');
  return 0;
}

async function ask(io: HashPasswordIo, input: LineInput, prompt: string): Promise<string | undefined | typeof INTERRUPTED> {
  if (io.isTTY) io.stderr.write(prompt);
  const line = await input.next();
  // With echo off the user's Enter did not move the cursor either.
  if (input.hidden) io.stderr.write('\n');
  return line;
}
