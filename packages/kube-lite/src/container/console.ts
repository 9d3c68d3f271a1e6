/**
 * The simulated process behind every pod: a log, a game console for attach and interactive
 * exec, and a few commands for non-interactive exec (`echo`, `sh -c`, `cat`, `printf`,
 * `sleep`, `seq`, ...).
 */
import { EventEmitter } from 'node:events';
import { printf } from './printf.js';

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
  /** The client went away (or kube-lite is closing) before the process exited: stop, keeping nothing alive. */
  kill: () => void;
}

/**
 * Player tracking as the Agones SDK sidecar does it for the game process (PlayerConnect,
 * PlayerDisconnect): it refuses players beyond capacity and reports the connected ones.
 */
export interface PlayerTracking {
  /** The player capacity of the pod's game server, or undefined when it tracks no players. */
  capacity: (info: PodInfo) => number | undefined;
  /** The connected players changed; `ids` in the order they joined. */
  changed: (info: PodInfo, ids: string[]) => void;
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
  '  restart         restart the game process (players are disconnected)',
  '  echo <text>     print text',
  '  exit            close the console',
].join('\n');

/** The longest delay one `setTimeout` takes (about 24.8 days); longer sleeps wait in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** `seq` prints at most this many numbers, so one exec cannot take the server's memory. */
const SEQ_LIMIT = 1_000_000;
/** `seq` writes its output in chunks of about this size, as a process writes through a pipe. */
const SEQ_CHUNK = 32 * 1024;

export class PodConsole extends EventEmitter<{ log: [LogLine]; stdout: [string] }> {
  readonly logs: LogLine[] = [];
  /** Connected players, in the order they joined. */
  readonly players = new Set<string>();

  constructor(
    readonly info: PodInfo,
    private readonly tracking: () => PlayerTracking | undefined = () => undefined,
  ) {
    super();
    // Every attached client and log follower listens; a pod takes as many as connect, not ten.
    this.setMaxListeners(0);
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
        return this.players.size
          ? `${this.players.size} player(s): ${[...this.players].sort().join(', ')}`
          : '0 players';
      case 'join': {
        const player = rest[0];
        if (!player) return 'usage: join <name>';
        const capacity = this.tracking()?.capacity(this.info);
        if (!this.players.has(player) && capacity !== undefined && this.players.size >= capacity) {
          this.log(`player ${player} refused: server is full`);
          return `${player} refused: server is full (capacity ${capacity})`;
        }
        this.players.add(player);
        this.log(`player ${player} joined`);
        this.playersChanged();
        return `${player} joined`;
      }
      case 'leave': {
        const player = rest[0];
        if (!player) return 'usage: leave <name>';
        this.players.delete(player);
        this.log(`player ${player} left`);
        this.playersChanged();
        return `${player} left`;
      }
      case 'say':
        this.log(`[say] ${argText}`);
        return `[server] ${argText}`;
      case 'restart':
        // The game process starts over inside the same container: its players are gone and it
        // tells the SDK it is Ready again; the GameServer itself keeps its name and state.
        this.log('game process restarting');
        this.players.clear();
        this.playersChanged();
        this.log('SDK: Ready() called, game server is Ready');
        return 'game process restarted';
      case 'echo':
        return argText;
      default:
        return undefined;
    }
  }

  private playersChanged(): void {
    this.tracking()?.changed(this.info, [...this.players]);
  }

  /** Attach, or an interactive shell: each line is a command; other lines are echoed back. */
  interactive(io: ProcessIO, out: (text: string) => void = io.stdout): Process {
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
      out(`${output ?? line.replace(/\r$/, '')}\n`);
    };
    const endInput = (): void => {
      if (buffer) handleLine(buffer);
      buffer = '';
      finish(0);
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
      endInput,
      kill: endInput,
    };
  }

  /**
   * Attach: the container's one main process, as on a real node. What any attached client types
   * reaches it, and what it writes reaches every attached client (each `kubectl attach` of a pod
   * sees the same output), unlike an exec, whose process is the client's own.
   */
  attach(io: ProcessIO): Process {
    const onOutput = (text: string): void => io.stdout(text);
    this.on('stdout', onOutput);
    const detach = (): void => {
      this.off('stdout', onOutput);
    };
    const process_ = this.interactive({ ...io, exit: (code) => (detach(), io.exit(code)) }, (text) =>
      this.emit('stdout', text),
    );
    return {
      input: process_.input,
      endInput: () => (detach(), process_.endInput()),
      kill: () => (detach(), process_.kill()),
    };
  }

  /** Non-interactive `exec`: a small set of programs. */
  exec(command: string[], io: ProcessIO, stdin: boolean): Process {
    const [program = '', ...args] = command;
    const base = program.split('/').pop() ?? program;
    const noInput: Process = { input: () => undefined, endInput: () => undefined, kill: () => undefined };
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
        const endInput = (): void => {
          if (ended) return;
          ended = true;
          io.exit(0);
        };
        return { input: (text) => io.stdout(text), endInput, kill: endInput };
      }
      case 'printf': {
        const result = printf(args);
        return once(result.code, result.stdout, result.stderr);
      }
      case 'sleep': {
        const seconds = parseSleep(args);
        return typeof seconds === 'string' ? once(1, '', seconds) : sleep(seconds, io);
      }
      case 'seq': {
        const range = parseSeq(args);
        return typeof range === 'string' ? once(1, '', range) : seq(range, io);
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
        const output = this.command(
          trimmed.replace(/^(["'])(.*)\1$/, '$2').replace(/^echo\s+(["'])(.*)\1$/, 'echo $2'),
        );
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
    return { input: () => undefined, endInput: () => undefined, kill: () => undefined };
  }
}

/** Seconds as coreutils' sleep reads them (numbers with an optional s, m, h or d suffix, summed), or its complaint. */
function parseSleep(args: readonly string[]): number | string {
  const help = "Try 'sleep --help' for more information.\n";
  if (args.length === 0) return `sleep: missing operand\n${help}`;
  const units: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };
  let total = 0;
  for (const arg of args) {
    const match = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(arg);
    if (!match) return `sleep: invalid time interval '${arg}'\n${help}`;
    total += Number(match[1]) * (units[match[2] as string] as number);
  }
  return total;
}

/** `sleep`: exits 0 after the time; killed, it clears its timer so nothing outlives the session. */
function sleep(seconds: number, io: ProcessIO): Process {
  const deadline = Date.now() + seconds * 1000;
  let timer: NodeJS.Timeout | undefined;
  const wait = (): void => {
    const left = deadline - Date.now();
    if (left <= 0) {
      timer = undefined;
      io.exit(0);
      return;
    }
    timer = setTimeout(wait, Math.min(left, MAX_TIMER_MS));
  };
  timer = setTimeout(wait, 0);
  const kill = (): void => {
    clearTimeout(timer);
    timer = undefined;
  };
  return { input: () => undefined, endInput: () => undefined, kill };
}

interface SeqRange {
  first: number;
  step: number;
  count: number;
}

/** `seq [FIRST [INCREMENT]] LAST` over integers, or coreutils' complaint. */
function parseSeq(args: readonly string[]): SeqRange | string {
  const help = "Try 'seq --help' for more information.\n";
  if (args.length === 0) return `seq: missing operand\n${help}`;
  const bad = args.find((arg) => !/^[+-]?\d+$/.test(arg));
  if (bad !== undefined) return `seq: invalid floating point argument: '${bad}'\n${help}`;
  if (args.length > 3) return `seq: extra operand '${args[3] as string}'\n${help}`;
  const numbers = args.map(Number);
  const [first, step, last] = (
    numbers.length === 1 ? [1, 1, numbers[0]] : numbers.length === 2 ? [numbers[0], 1, numbers[1]] : numbers
  ) as [number, number, number];
  if (step === 0) return `seq: invalid Zero increment value: '${args[1] as string}'\n${help}`;
  const count = Math.max(0, Math.floor((last - first) / step) + 1);
  if (count > SEQ_LIMIT) return `seq: kube-lite prints at most ${SEQ_LIMIT} numbers\n`;
  return { first, step, count };
}

/** `seq`: one number a line, written in chunks until done or killed. */
function seq({ first, step, count }: SeqRange, io: ProcessIO): Process {
  let index = 0;
  let pending: NodeJS.Immediate | undefined;
  const writeChunk = (): void => {
    let chunk = '';
    while (index < count && chunk.length < SEQ_CHUNK) chunk += `${first + index++ * step}\n`;
    if (chunk) io.stdout(chunk);
    if (index < count) {
      pending = setImmediate(writeChunk);
      return;
    }
    pending = undefined;
    io.exit(0);
  };
  pending = setImmediate(writeChunk);
  const kill = (): void => {
    if (pending) clearImmediate(pending);
    pending = undefined;
  };
  return { input: () => undefined, endInput: () => undefined, kill };
}

/** The consoles of all pods, created on first use. */
export class Consoles {
  private readonly byPod = new Map<string, PodConsole>();
  /** Set by the Agones controller while it runs. */
  playerTracking: PlayerTracking | undefined;

  get(info: PodInfo): PodConsole {
    const key = `${info.namespace}/${info.name}`;
    let console_ = this.byPod.get(key);
    if (!console_) {
      console_ = new PodConsole(info, () => this.playerTracking);
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
