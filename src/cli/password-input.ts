import { UsageError, type CliIo } from './command.js';

/**
 * The new password of `user create` and `user password`: all of standard input with
 * `--password-stdin` (one final line break dropped), else asked twice on the terminal with echo
 * off. Without a terminal and without the option it is refused: nothing would answer a prompt.
 */
export async function readNewPassword(io: CliIo, fromStdin: boolean): Promise<string> {
  const password = fromStdin ? await readAll(io) : await askTwice(io);
  // An empty password would leave the user without one, or keep the old one.
  if (password === '') throw new Error('the password is empty');
  return password;
}

async function readAll(io: CliIo): Promise<string> {
  let text = '';
  io.stdin.setEncoding('utf8');
  for await (const chunk of io.stdin) text += chunk as string;
  return text.replace(/\r?\n$/, '');
}

async function askTwice(io: CliIo): Promise<string> {
  if (!io.stdin.isTTY || !io.stdin.setRawMode) {
    throw new UsageError('standard input is not a terminal to ask the password on: pipe it in with --password-stdin');
  }
  const first = await askHidden(io, 'New password: ');
  const second = await askHidden(io, 'Repeat it: ');
  if (first !== second) throw new Error('the two passwords differ');
  return first;
}

/** One line typed with echo off (raw mode): Enter ends it, Backspace removes a character, Ctrl-C cancels. */
function askHidden(io: CliIo, prompt: string): Promise<string> {
  const { stdin, stderr } = io;
  // Echo off before the prompt shows: nothing typed in answer to it is ever echoed.
  stdin.setRawMode!(true);
  stderr.write(prompt);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let typed: string[] = [];
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode!(false);
      stdin.pause();
      stderr.write('\n');
      if (error) reject(error);
      else resolve(typed.join(''));
    };
    const onData = (chunk: string) => {
      for (const character of chunk) {
        if (character === '\r' || character === '\n' || character === '\u0004') return finish();
        if (character === '\u0003') return finish(new Error('cancelled'));
        if (character === '\u007f' || character === '\b') typed = typed.slice(0, -1);
        else typed.push(character);
      }
    };
    stdin.on('data', onData);
  });
}
