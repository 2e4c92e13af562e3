/**
 * A seccomp program (classic BPF, as bubblewrap's `--seccomp FD` reads it) that refuses to create
 * Unix-domain sockets. A new network namespace cuts every IP address, loopback included, and the
 * abstract Unix sockets, but not a socket file the sandbox can see (a database's, an agent's, a
 * container engine's): with the network off, no process in the sandbox may open one. Socket pairs
 * (how programs talk to their own children) stay allowed. io_uring is refused (it opens sockets
 * without the socket call), and so is any other architecture's system call (32-bit programs on a
 * 64-bit kernel), as it would reach sockets by other numbers.
 */

const LD_W_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ_K = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JGE_K = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const RET_K = 0x06; // BPF_RET | BPF_K

const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
const AF_UNIX = 1;
/** x32 system calls carry this bit (x86-64 kernels). */
const X32_SYSCALL_BIT = 0x40000000;

/** seccomp_data: the call's number, then its architecture, then (after the instruction pointer) its arguments. */
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0_LOW = 16;

const ARCHES: Partial<Record<NodeJS.Architecture, { audit: number; socket: number }>> = {
  x64: { audit: 0xc000003e, socket: 41 },
  arm64: { audit: 0xc00000b7, socket: 198 },
};
/** io_uring_setup: the same number on every architecture since it was added. */
const IO_URING_SETUP = 425;

type Instruction = [code: number, jt: number, jf: number, k: number];

/** The program for this machine's architecture, or undefined where Tally has none (the mounts still hide /tmp's and /run's sockets). */
export function unixSocketFilter(arch: NodeJS.Architecture = process.arch): Buffer | undefined {
  const native = ARCHES[arch];
  if (!native) return undefined;
  const deny = SECCOMP_RET_ERRNO | EPERM;
  const program: Instruction[] = [
    /* 0 */ [LD_W_ABS, 0, 0, OFFSET_ARCH],
    /* 1 */ [JEQ_K, 1, 0, native.audit],
    /* 2 */ [RET_K, 0, 0, deny],
    /* 3 */ [LD_W_ABS, 0, 0, OFFSET_NR],
    /* 4 */ [JGE_K, 5, 0, X32_SYSCALL_BIT], // → 10 (deny)
    /* 5 */ [JEQ_K, 4, 0, IO_URING_SETUP], // → 10 (deny)
    /* 6 */ [JEQ_K, 0, 2, native.socket], // → 9 (allow)
    /* 7 */ [LD_W_ABS, 0, 0, OFFSET_ARG0_LOW],
    /* 8 */ [JEQ_K, 1, 0, AF_UNIX], // → 10 (deny)
    /* 9 */ [RET_K, 0, 0, SECCOMP_RET_ALLOW],
    /* 10 */ [RET_K, 0, 0, deny],
  ];
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], i) => {
    bytes.writeUInt16LE(code, i * 8);
    bytes.writeUInt8(jt, i * 8 + 2);
    bytes.writeUInt8(jf, i * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return bytes;
}
