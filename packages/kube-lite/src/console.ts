/**
 * The simulated process behind every pod: a log, a game console for attach and interactive
 * exec, and a few commands for non-interactive exec (`echo`, `sh -c`, `cat`, ...).
 */
import { EventEmitter } from 'node:events';

export interface PodInfo {
  namespace: string;
  name: string;
  /** One line describing the game server or pod, for the `status` command. */
  describe: () => string;
}

export interface ProcessIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  exit: (code: number) => void;
}

export interface Process {
  /** Text typed on stdin (any chunking). */
  input: (text: string) => void;
  /** stdin was closed. */
  endInput: () => void;
}

export interface LogLine {
  time: string;
  text: string;
}

const HELP = [
  'commands:',
  '  help            this list',
  '  status          state, address and port of this server',
  '  players         connected players',
  '  join <name>     simulate a player joining',
  '  leave <name>    simulate a player leaving',
  '  say <text>      broadcast a message to all players',
  '  echo <text>     print text',
  '  exit            close the console',
].join('\n');

export class PodConsole extends EventEmitter<{ log: [LogLine] }> {
  readonly logs: LogLine[] = [];
  readonly players = new Set<string>();

  constructor(readonly info: PodInfo) {
    super();
  }

  log(text: string): void {
    const line = { time: new Date().toISOString(), text };
    this.logs.push(line);
    if (this.logs.length > 5000) this.logs.splice(0, this.logs.length - 5000);
    this.emit('log', line);
  }

  /** Runs one console command and returns its output, or undefined if `line` is not a command. */
  command(line: string): string | undefined {
    const trimmed = line.trim();
    const [word = '', ...rest] = trimmed.split(/\s+/);
    const argText = trimmed.slice(word.length).trim();
    switch (word) {
      case 'help':
        return HELP;
      case 'status':
        return this.info.describe();
      case 'players':
        return this.players.size ? `${this.players.size} player(s): ${[...this.players].sort().join(', ')}` : '0 players';
      case 'join':
        if (!rest[0]) return 'usage: join <name>';
        this.players.add(rest[0]);
        this.log(`player ${rest[0]} joined`);
        return `${rest[0]} joined`;
      case 'leave':
        if (!rest[0]) return 'usage: leave <name>';
        this.players.delete(rest[0]);
        this.log(`player ${rest[0]} left`);
        return `${rest[0]} left`;
      case 'say':
        this.log(`[say] ${argText}`);
        return `[server] ${argText}`;
      case 'echo':
        return argText;
      default:
        return undefined;
    }
  }

  /** Attach, or an interactive shell: each line is a command; other lines are echoed back. */
  interactive(io: ProcessIO): Process {
    let buffer = '';
    let done = false;
    const finish = (code: number): void => {
      if (done) return;
      done = true;
      io.exit(code);
    };
    const handleLine = (line: string): void => {
      if (done) return;
      const trimmed = line.trim();
      if (trimmed === '') return;
      const exit = /^exit(?:\s+(\d+))?$/.exec(trimmed);
      if (exit) {
        finish(Number(exit[1] ?? 0));
        return;
      }
      const output = this.command(trimmed);
      io.stdout(`${output ?? line.replace(/\r$/, '')}\n`);
    };
    return {
      input: (text) => {
        buffer += text.replace(/\r(?!\n)/g, '\n');
        let index: number;
        while ((index = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, index);
          buffer = buffer.slice(index + 1);
          handleLine(line);
        }
      },
      endInput: () => {
        if (buffer) handleLine(buffer);
        buffer = '';
        finish(0);
      },
    };
  }

  /** Non-interactive `exec`: a small set of programs. */
  exec(command: string[], io: ProcessIO, stdin: boolean): Process {
    const [program = '', ...args] = command;
    const base = program.split('/').pop() ?? program;
    const noInput: Process = { input: () => undefined, endInput: () => undefined };
    const once = (code: number, out = '', err = ''): Process => {
      queueMicrotask(() => {
        if (out) io.stdout(out);
        if (err) io.stderr(err);
        io.exit(code);
      });
      return noInput;
    };
    switch (base) {
      case 'echo':
        return once(0, `${args.join(' ')}\n`);
      case 'true':
        return once(0);
      case 'false':
        return once(1);
      case 'hostname':
        return once(0, `${this.info.name}\n`);
      case 'cat': {
        if (!stdin) return once(0);
        let ended = false;
        return {
          input: (text) => io.stdout(text),
          endInput: () => {
            if (ended) return;
            ended = true;
            io.exit(0);
          },
        };
      }
      case 'sh':
      case 'bash':
      case 'console': {
        if (args[0] === '-c') return this.script(args.slice(1).join(' '), io);
        if (stdin) return this.interactive(io);
        return once(0);
      }
      default: {
        const output = this.command(command.join(' '));
        if (output !== undefined) return once(0, `${output}\n`);
        return once(127, '', `exec: "${program}": executable file not found in $PATH\n`);
      }
    }
  }

  private script(script: string, io: ProcessIO): Process {
    queueMicrotask(() => {
      for (const statement of script.split(/;|&&|\n/)) {
        const trimmed = statement.trim();
        if (!trimmed) continue;
        const exit = /^exit(?:\s+(\d+))?$/.exec(trimmed);
        if (exit) {
          io.exit(Number(exit[1] ?? 0));
          return;
        }
        const output = this.command(trimmed.replace(/^(["'])(.*)\1$/, '$2').replace(/^echo\s+(["'])(.*)\1$/, 'echo $2'));
        if (output === undefined) {
          const program = trimmed.split(/\s+/)[0];
          io.stderr(`sh: 1: ${program}: not found\n`);
          io.exit(127);
          return;
        }
        io.stdout(`${output}\n`);
      }
      io.exit(0);
    });
    return { input: () => undefined, endInput: () => undefined };
  }
}

/** The consoles of all pods, created on first use. */
export class Consoles {
  private readonly byPod = new Map<string, PodConsole>();

  get(info: PodInfo): PodConsole {
    const key = `${info.namespace}/${info.name}`;
    let console_ = this.byPod.get(key);
    if (!console_) {
      console_ = new PodConsole(info);
      this.byPod.set(key, console_);
    }
    return console_;
  }

  find(namespace: string, name: string): PodConsole | undefined {
    return this.byPod.get(`${namespace}/${name}`);
  }

  remove(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    this.byPod.get(key)?.removeAllListeners();
    this.byPod.delete(key);
  }
}
