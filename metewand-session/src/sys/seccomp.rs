//! The seccomp filter every confined worker gets, built in the parent (once per kind of filter and process) and
//! installed by the forked child last before `exec` (`child.rs`).
//!
//! The filter answers a call itself with an errno and never kills: `ENOSYS` where a library is expected to fall
//! back (`clone3` to `clone`, io_uring to ordinary I/O, `memfd_create` to a file), `EPERM` otherwise. It looks at
//! every system call ABI a process of this architecture can use (x86-64 with x32 and i386's `int 0x80`, AArch64
//! with 32-bit Arm), since a filter on the native numbers alone is passed by the other ABIs' numbers. What it
//! refuses is [`FilterPlan`]'s: the default refusals (DESIGN §23, in the spirit of Docker's default profile), less
//! what the worker declared (`[workers.X] syscalls`), plus the CPU lock and the memory bound where the session asks
//! for them.

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock, PoisonError};

/// A group of system calls a worker may declare it needs (`[workers.X] syscalls`), each refused by default: the
/// record's own type, named as the calls are.
///
/// - `io_uring`: `io_uring_setup`, `io_uring_enter` and `io_uring_register` (but for `IORING_REGISTER_IOWQ_AFF`):
///   its kernel threads can run on CPUs the worker's own may not, so a worker declaring it has advisory CPUs;
/// - `keyctl`: `add_key` and `keyctl` on the worker's own thread, process and session keyrings; never the per-user,
///   user-session or persistent keyrings, joining a named keyring, or `request_key` (whose upcall runs a helper
///   outside the worker);
/// - `perf_event_open`: hardware counters, within `kernel.perf_event_paranoid`; `bpf`; `userfaultfd`;
/// - `memfd_create`: refused only while a memory limit cannot count what a memfd holds.
pub use metewand_protocol::declared::{SyscallGroup, SyscallGroups};

/// What one worker's filter refuses beyond the defaults that always hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct FilterPlan {
    /// The groups the worker declared: not refused.
    pub(crate) declared: SyscallGroups,
    /// Refuse `sched_setaffinity`: the worker stays on the CPUs it was started on.
    pub(crate) lock_affinity: bool,
    /// Refuse `memfd_create` (unless declared): a memory limit is kept without a cgroup, which would count what a
    /// memfd holds.
    pub(crate) bound_memfds: bool,
    /// Refuse System V shared memory segments and message queues (`shmget`, `msgget`): a memory limit is kept
    /// without an IPC namespace whose limits the worker's child could set from it.
    pub(crate) bound_sysv: bool,
}

/// The filter for `plan`, built once per process and plan; `None` where the kernel has no seccomp filters with
/// the errno action, or this architecture's numbers are not known here.
pub(crate) fn program(plan: FilterPlan) -> Option<&'static [libc::sock_filter]> {
    static PROGRAMS: OnceLock<Mutex<BTreeMap<FilterPlan, &'static [libc::sock_filter]>>> = OnceLock::new();
    static WORKS: OnceLock<bool> = OnceLock::new();
    if !*WORKS.get_or_init(seccomp_errno_works) {
        return None;
    }
    let abis = abis()?;
    let mut programs = PROGRAMS.get_or_init(Default::default).lock().unwrap_or_else(PoisonError::into_inner);
    // At most one program per plan, and there are few plans (2^6 declarations × 2^3): leaking them is bounded.
    Some(programs.entry(plan).or_insert_with(|| Vec::leak(build(&rules(plan), abis))))
}

fn seccomp_errno_works() -> bool {
    #[allow(clippy::disallowed_methods, reason = "procfs, which only the kernel writes")]
    std::fs::read_to_string("/proc/sys/kernel/seccomp/actions_avail")
        .is_ok_and(|actions| actions.split_whitespace().any(|action| action == "errno"))
}

/// A system call, named for the table of numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Call {
    SchedSetaffinity,
    IoUringSetup,
    IoUringEnter,
    IoUringRegister,
    Clone3,
    AddKey,
    RequestKey,
    Keyctl,
    Bpf,
    PerfEventOpen,
    Userfaultfd,
    MemfdCreate,
    Shmget,
    Msgget,
    /// i386's multiplexer of the System V calls.
    Ipc,
    KexecLoad,
    KexecFileLoad,
    InitModule,
    FinitModule,
    DeleteModule,
    Swapon,
    Swapoff,
    Reboot,
}

/// One system call ABI: the audit architecture `struct seccomp_data` names it by, and its numbers.
#[derive(Clone, Copy, Debug)]
struct Abi {
    arch: u32,
    /// Bits of the number cleared before it is compared (x32's `__X32_SYSCALL_BIT`, which shares x86-64's
    /// architecture and numbers).
    clear: u32,
    numbers: fn(Call) -> &'static [u32],
}

const ARCH_X86_64: u32 = 0xc000_003e;
const ARCH_I386: u32 = 0x4000_0003;
const ARCH_AARCH64: u32 = 0xc000_00b7;
const ARCH_ARM: u32 = 0x4000_0028;
const X32_BIT: u32 = 0x4000_0000;

/// The ABIs a process of this architecture can make system calls through; `None` for an architecture whose
/// numbers are not known here.
fn abis() -> Option<&'static [Abi]> {
    if cfg!(target_arch = "x86_64") {
        Some(&[
            Abi { arch: ARCH_X86_64, clear: X32_BIT, numbers: x86_64 },
            Abi { arch: ARCH_I386, clear: 0, numbers: i386 },
        ])
    } else if cfg!(target_arch = "aarch64") {
        Some(&[Abi { arch: ARCH_AARCH64, clear: 0, numbers: aarch64 }, Abi { arch: ARCH_ARM, clear: 0, numbers: arm }])
    } else {
        None
    }
}

// From each ABI's system call table (`unistd_64.h`, `unistd_32.h`, `unistd_x32.h`, asm-generic's, Arm EABI's).
// The calls numbered from 424 up are alike on every ABI.
fn x86_64(call: Call) -> &'static [u32] {
    match call {
        Call::SchedSetaffinity => &[203],
        Call::AddKey => &[248],
        Call::RequestKey => &[249],
        Call::Keyctl => &[250],
        Call::Bpf => &[321],
        Call::PerfEventOpen => &[298],
        Call::Userfaultfd => &[323],
        Call::MemfdCreate => &[319],
        Call::Shmget => &[29],
        Call::Msgget => &[68],
        Call::Ipc => &[],
        // x32's own kexec_load is 512 + 16.
        Call::KexecLoad => &[246, 528],
        Call::KexecFileLoad => &[320],
        Call::InitModule => &[175],
        Call::FinitModule => &[313],
        Call::DeleteModule => &[176],
        Call::Swapon => &[167],
        Call::Swapoff => &[168],
        Call::Reboot => &[169],
        common => common_numbers(common),
    }
}

fn i386(call: Call) -> &'static [u32] {
    match call {
        Call::SchedSetaffinity => &[241],
        Call::AddKey => &[286],
        Call::RequestKey => &[287],
        Call::Keyctl => &[288],
        Call::Bpf => &[357],
        Call::PerfEventOpen => &[336],
        Call::Userfaultfd => &[374],
        Call::MemfdCreate => &[356],
        Call::Shmget => &[395],
        Call::Msgget => &[399],
        Call::Ipc => &[117],
        Call::KexecLoad => &[283],
        Call::KexecFileLoad => &[],
        Call::InitModule => &[128],
        Call::FinitModule => &[350],
        Call::DeleteModule => &[129],
        Call::Swapon => &[87],
        Call::Swapoff => &[115],
        Call::Reboot => &[88],
        common => common_numbers(common),
    }
}

fn aarch64(call: Call) -> &'static [u32] {
    match call {
        Call::SchedSetaffinity => &[122],
        Call::AddKey => &[217],
        Call::RequestKey => &[218],
        Call::Keyctl => &[219],
        Call::Bpf => &[280],
        Call::PerfEventOpen => &[241],
        Call::Userfaultfd => &[282],
        Call::MemfdCreate => &[279],
        Call::Shmget => &[194],
        Call::Msgget => &[186],
        Call::Ipc => &[],
        Call::KexecLoad => &[104],
        Call::KexecFileLoad => &[294],
        Call::InitModule => &[105],
        Call::FinitModule => &[273],
        Call::DeleteModule => &[106],
        Call::Swapon => &[224],
        Call::Swapoff => &[225],
        Call::Reboot => &[142],
        common => common_numbers(common),
    }
}

fn arm(call: Call) -> &'static [u32] {
    match call {
        Call::SchedSetaffinity => &[241],
        Call::AddKey => &[309],
        Call::RequestKey => &[310],
        Call::Keyctl => &[311],
        Call::Bpf => &[386],
        Call::PerfEventOpen => &[364],
        Call::Userfaultfd => &[388],
        Call::MemfdCreate => &[385],
        Call::Shmget => &[307],
        Call::Msgget => &[303],
        Call::Ipc => &[],
        Call::KexecLoad => &[347],
        Call::KexecFileLoad => &[401],
        Call::InitModule => &[128],
        Call::FinitModule => &[379],
        Call::DeleteModule => &[129],
        Call::Swapon => &[87],
        Call::Swapoff => &[115],
        Call::Reboot => &[88],
        common => common_numbers(common),
    }
}

fn common_numbers(call: Call) -> &'static [u32] {
    match call {
        Call::IoUringSetup => &[425],
        Call::IoUringEnter => &[426],
        Call::IoUringRegister => &[427],
        Call::Clone3 => &[435],
        _ => &[],
    }
}

/// How a rule answers a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Answer {
    /// Always this errno.
    Refuse(i32),
    /// This errno when one of the arguments (by index; the low 32 bits, as the kernel reads an `int` or a
    /// `key_serial_t`) holds one of the values; allowed otherwise.
    RefuseIf { errno: i32, arguments: &'static [usize], values: &'static [u32] },
}

/// `key_serial_t` values of the per-user (-4) and user-session (-5) keyrings, as 32-bit words.
const SHARED_KEYRINGS: [u32; 2] = [(-4i32) as u32, (-5i32) as u32];
/// `keyctl` operations refused to a worker that may use keyrings: `KEYCTL_JOIN_SESSION_KEYRING` (1: a named
/// keyring another session may hold) and `KEYCTL_GET_PERSISTENT` (22: a keyring that outlives every process).
const KEYCTL_REFUSED_OPERATIONS: [u32; 2] = [1, 22];
/// The calls of i386's `ipc(2)` multiplexer that make a message queue (`MSGGET`) or a segment (`SHMGET`).
const IPC_MAKERS: [u32; 2] = [13, 23];
/// `IORING_REGISTER_IOWQ_AFF`: the CPUs io_uring's worker threads may run on.
const IORING_REGISTER_IOWQ_AFF: u32 = 17;

/// The rules of `plan`, each a call and its answer; a call appears at most once, except `keyctl`, whose two
/// conditional rules are checked in turn.
fn rules(plan: FilterPlan) -> Vec<(Call, Answer)> {
    let declared = |group| plan.declared.contains(group);
    let mut rules = vec![
        // glibc falls back to clone(2), whose flags a filter can see; CLONE_INTO_CGROUP exists only in clone3.
        (Call::Clone3, Answer::Refuse(libc::ENOSYS)),
        (Call::RequestKey, Answer::Refuse(libc::EPERM)),
    ];
    for call in [
        Call::KexecLoad,
        Call::KexecFileLoad,
        Call::InitModule,
        Call::FinitModule,
        Call::DeleteModule,
        Call::Swapon,
        Call::Swapoff,
        Call::Reboot,
    ] {
        rules.push((call, Answer::Refuse(libc::EPERM)));
    }
    if declared(SyscallGroup::IoUring) {
        let affinity = Answer::RefuseIf { errno: libc::EPERM, arguments: &[1], values: &[IORING_REGISTER_IOWQ_AFF] };
        rules.push((Call::IoUringRegister, affinity));
    } else {
        for call in [Call::IoUringSetup, Call::IoUringEnter, Call::IoUringRegister] {
            rules.push((call, Answer::Refuse(libc::ENOSYS)));
        }
    }
    if declared(SyscallGroup::Keyctl) {
        rules.push((Call::AddKey, Answer::RefuseIf { errno: libc::EPERM, arguments: &[4], values: &SHARED_KEYRINGS }));
        rules.push((
            Call::Keyctl,
            Answer::RefuseIf { errno: libc::EPERM, arguments: &[0], values: &KEYCTL_REFUSED_OPERATIONS },
        ));
        rules.push((
            Call::Keyctl,
            Answer::RefuseIf { errno: libc::EPERM, arguments: &[1, 2, 3], values: &SHARED_KEYRINGS },
        ));
    } else {
        rules.push((Call::AddKey, Answer::Refuse(libc::EPERM)));
        rules.push((Call::Keyctl, Answer::Refuse(libc::EPERM)));
    }
    for (group, call) in [
        (SyscallGroup::Bpf, Call::Bpf),
        (SyscallGroup::PerfEventOpen, Call::PerfEventOpen),
        (SyscallGroup::Userfaultfd, Call::Userfaultfd),
    ] {
        if !declared(group) {
            rules.push((call, Answer::Refuse(libc::EPERM)));
        }
    }
    if plan.bound_memfds && !declared(SyscallGroup::MemfdCreate) {
        rules.push((Call::MemfdCreate, Answer::Refuse(libc::ENOSYS)));
    }
    if plan.bound_sysv {
        rules.push((Call::Shmget, Answer::Refuse(libc::ENOSYS)));
        rules.push((Call::Msgget, Answer::Refuse(libc::ENOSYS)));
        rules.push((Call::Ipc, Answer::RefuseIf { errno: libc::ENOSYS, arguments: &[0], values: &IPC_MAKERS }));
    }
    if plan.lock_affinity {
        rules.push((Call::SchedSetaffinity, Answer::Refuse(libc::EPERM)));
    }
    rules
}

/// A statement whose jumps name labels, resolved to offsets once the program is laid out.
#[derive(Clone, Copy, Debug)]
enum Statement {
    /// Load the 32-bit word at this offset of `struct seccomp_data`.
    Load(u32),
    /// Clear these bits of the loaded word.
    Clear(u32),
    /// Jump to the label when the loaded word equals the value; go on otherwise.
    JumpIfEqual(u32, usize),
    /// Go to the label.
    Goto(usize),
    /// Define a label here.
    Label(usize),
    /// Return this action.
    Return(u32),
}

const ALLOW: u32 = libc::SECCOMP_RET_ALLOW;

fn errno(errno: i32) -> u32 {
    libc::SECCOMP_RET_ERRNO | (errno as u32 & libc::SECCOMP_RET_DATA)
}

/// `struct seccomp_data`: the call's number at 0, the audit architecture at 4, the arguments from 16, 8 bytes
/// each; their low 32 bits come first on a little-endian machine (every architecture here).
const NUMBER: u32 = 0;
const ARCH: u32 = 4;
fn argument(index: usize) -> u32 {
    16 + 8 * index as u32
}

/// Lays out `rules` for each of `abis` and assembles the program: a dispatch on the architecture, then on each ABI
/// the call numbers, each jumping to its call's answers, which all ABIs share.
fn build(rules: &[(Call, Answer)], abis: &[Abi]) -> Vec<libc::sock_filter> {
    let mut labels = 0;
    let mut label = || {
        labels += 1;
        labels - 1
    };
    let allow = label();
    // Each call's answers in turn: a conditional answer that allows goes on to the call's next one, if any.
    let mut calls: Vec<(Call, Vec<(usize, Answer)>)> = Vec::new();
    for &(call, answer) in rules {
        let at = label();
        match calls.iter_mut().find(|(seen, _)| *seen == call) {
            Some((_, answers)) => answers.push((at, answer)),
            None => calls.push((call, vec![(at, answer)])),
        }
    }
    let mut code = vec![Statement::Load(ARCH)];
    let sections: Vec<(Abi, usize)> = abis.iter().map(|abi| (*abi, label())).collect();
    for (abi, start) in &sections {
        code.push(Statement::JumpIfEqual(abi.arch, *start));
    }
    // An architecture no process here can use: nothing to refuse.
    code.push(Statement::Goto(allow));
    for (abi, start) in &sections {
        code.push(Statement::Label(*start));
        code.push(Statement::Load(NUMBER));
        if abi.clear != 0 {
            code.push(Statement::Clear(abi.clear));
        }
        for (call, answers) in &calls {
            for &number in (abi.numbers)(*call) {
                code.push(Statement::JumpIfEqual(number, answers[0].0));
            }
        }
        code.push(Statement::Goto(allow));
    }
    for (_, answers) in &calls {
        for (index, &(at, answer)) in answers.iter().enumerate() {
            code.push(Statement::Label(at));
            match answer {
                Answer::Refuse(number) => code.push(Statement::Return(errno(number))),
                Answer::RefuseIf { errno: number, arguments, values } => {
                    let refuse = label();
                    for &argument_index in arguments {
                        code.push(Statement::Load(argument(argument_index)));
                        for &value in values {
                            code.push(Statement::JumpIfEqual(value, refuse));
                        }
                    }
                    code.push(Statement::Goto(answers.get(index + 1).map_or(allow, |(next, _)| *next)));
                    code.push(Statement::Label(refuse));
                    code.push(Statement::Return(errno(number)));
                }
            }
        }
    }
    code.push(Statement::Label(allow));
    code.push(Statement::Return(ALLOW));
    assemble(&code)
}

/// Resolves labels into the offsets of classic BPF. A conditional jump reaches at most 255 statements ahead, so
/// each becomes `jeq k, 0, 1` followed by `ja target` (a 32-bit offset): no target is ever out of reach.
fn assemble(code: &[Statement]) -> Vec<libc::sock_filter> {
    let mut positions: BTreeMap<usize, usize> = BTreeMap::new();
    let mut position = 0;
    for statement in code {
        match statement {
            Statement::Label(label) => {
                positions.insert(*label, position);
            }
            Statement::JumpIfEqual(..) => position += 2,
            _ => position += 1,
        }
    }
    let statement = |code: u32, jt: u8, jf: u8, k: u32| libc::sock_filter { code: code as u16, jt, jf, k };
    let mut program = Vec::with_capacity(position);
    for item in code {
        let here = program.len();
        let to = |label: &usize| (positions[label] - here - 1) as u32;
        match item {
            Statement::Load(offset) => {
                program.push(statement(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, 0, 0, *offset))
            }
            Statement::Clear(bits) => program.push(statement(libc::BPF_ALU | libc::BPF_AND | libc::BPF_K, 0, 0, !bits)),
            Statement::JumpIfEqual(value, label) => {
                // Equal: fall through to the `ja` after; not equal: skip it.
                program.push(statement(libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K, 0, 1, *value));
                let here = program.len();
                program.push(statement(libc::BPF_JMP | libc::BPF_JA, 0, 0, (positions[label] - here - 1) as u32));
            }
            Statement::Goto(label) => program.push(statement(libc::BPF_JMP | libc::BPF_JA, 0, 0, to(label))),
            Statement::Label(_) => {}
            Statement::Return(action) => program.push(statement(libc::BPF_RET | libc::BPF_K, 0, 0, *action)),
        }
    }
    program
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the program as the kernel would on one call: its number, architecture and arguments.
    fn run(program: &[libc::sock_filter], arch: u32, number: u32, args: [u64; 6]) -> u32 {
        let mut data = [0u8; 64];
        data[0..4].copy_from_slice(&number.to_le_bytes());
        data[4..8].copy_from_slice(&arch.to_le_bytes());
        for (index, value) in args.iter().enumerate() {
            data[16 + 8 * index..24 + 8 * index].copy_from_slice(&value.to_le_bytes());
        }
        let (mut accumulator, mut pc) = (0u32, 0usize);
        loop {
            let statement = program[pc];
            let code = u32::from(statement.code);
            pc += 1;
            if code == libc::BPF_LD | libc::BPF_W | libc::BPF_ABS {
                let at = statement.k as usize;
                accumulator = u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
            } else if code == libc::BPF_ALU | libc::BPF_AND | libc::BPF_K {
                accumulator &= statement.k;
            } else if code == libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K {
                pc += usize::from(if accumulator == statement.k { statement.jt } else { statement.jf });
            } else if code == libc::BPF_JMP | libc::BPF_JA {
                pc += statement.k as usize;
            } else if code == libc::BPF_RET | libc::BPF_K {
                return statement.k;
            } else {
                panic!("unexpected statement {code:#x}");
            }
        }
    }

    fn program_for(plan: FilterPlan) -> Vec<libc::sock_filter> {
        build(
            &rules(plan),
            &[
                Abi { arch: ARCH_X86_64, clear: X32_BIT, numbers: x86_64 },
                Abi { arch: ARCH_I386, clear: 0, numbers: i386 },
                Abi { arch: ARCH_AARCH64, clear: 0, numbers: aarch64 },
                Abi { arch: ARCH_ARM, clear: 0, numbers: arm },
            ],
        )
    }

    const NONE: [u64; 6] = [0; 6];

    #[test]
    fn the_default_filter_refuses_each_call_on_every_abi_and_allows_the_rest() {
        let program = program_for(FilterPlan::default());
        let refused = [
            (Call::Clone3, libc::ENOSYS),
            (Call::IoUringSetup, libc::ENOSYS),
            (Call::IoUringRegister, libc::ENOSYS),
            (Call::Bpf, libc::EPERM),
            (Call::PerfEventOpen, libc::EPERM),
            (Call::Userfaultfd, libc::EPERM),
            (Call::Keyctl, libc::EPERM),
            (Call::AddKey, libc::EPERM),
            (Call::RequestKey, libc::EPERM),
            (Call::KexecLoad, libc::EPERM),
            (Call::InitModule, libc::EPERM),
            (Call::Reboot, libc::EPERM),
            (Call::Swapon, libc::EPERM),
        ];
        for (arch, numbers) in [(ARCH_X86_64, x86_64 as fn(Call) -> _), (ARCH_I386, i386), (ARCH_AARCH64, aarch64)] {
            for (call, expected) in refused {
                for &number in numbers(call) {
                    assert_eq!(run(&program, arch, number, NONE), errno(expected), "{call:?} on {arch:#x}");
                }
            }
            // Neither the CPU lock nor the memfd bound was asked for.
            for call in [Call::SchedSetaffinity, Call::MemfdCreate] {
                assert_eq!(run(&program, arch, numbers(call)[0], NONE), ALLOW, "{call:?} on {arch:#x}");
            }
        }
        // x32's numbers are x86-64's with the x32 bit; read(2), write(2) and clone(2) go through.
        assert_eq!(run(&program, ARCH_X86_64, X32_BIT | 435, NONE), errno(libc::ENOSYS));
        for number in [0, 1, 56, X32_BIT | 1] {
            assert_eq!(run(&program, ARCH_X86_64, number, NONE), ALLOW);
        }
        assert_eq!(run(&program, 0x1234, 435, NONE), ALLOW, "an architecture no process here uses");
    }

    #[test]
    fn declared_groups_are_allowed_but_for_what_leaves_the_session() {
        let declared = [SyscallGroup::IoUring, SyscallGroup::Keyctl, SyscallGroup::Bpf].into_iter().collect();
        let plan = FilterPlan { declared, lock_affinity: true, bound_memfds: true, bound_sysv: true };
        let program = program_for(plan);
        let arch = ARCH_X86_64;
        assert_eq!(run(&program, arch, 425, NONE), ALLOW, "io_uring_setup");
        assert_eq!(run(&program, arch, 427, [3, 0, 0, 0, 0, 0]), ALLOW, "an ordinary io_uring_register");
        assert_eq!(run(&program, arch, 427, [3, 17, 0, 0, 0, 0]), errno(libc::EPERM), "IOWQ_AFF");
        assert_eq!(run(&program, arch, 321, NONE), ALLOW, "bpf");
        assert_eq!(run(&program, arch, 298, NONE), errno(libc::EPERM), "perf_event_open was not declared");
        let session = (-3i64) as u64;
        let user = (-4i64) as u64;
        assert_eq!(run(&program, arch, 248, [0, 0, 0, 0, session, 0]), ALLOW, "add_key to the session keyring");
        assert_eq!(run(&program, arch, 248, [0, 0, 0, 0, user, 0]), errno(libc::EPERM), "add_key to the user's");
        // keyctl(KEYCTL_SEARCH, session) goes through; the user keyring in any argument, the persistent keyring
        // and joining a named one do not. A value whose low word is -4 is -4 to the kernel.
        assert_eq!(run(&program, arch, 250, [10, session, 0, 0, 0, 0]), ALLOW);
        assert_eq!(run(&program, arch, 250, [10, user, 0, 0, 0, 0]), errno(libc::EPERM));
        assert_eq!(run(&program, arch, 250, [8, 5, 0xffff_fffc, 0, 0, 0]), errno(libc::EPERM), "link into user's");
        assert_eq!(run(&program, arch, 250, [22, session, 0, 0, 0, 0]), errno(libc::EPERM), "persistent");
        assert_eq!(run(&program, arch, 250, [1, 0, 0, 0, 0, 0]), errno(libc::EPERM), "join a named keyring");
        assert_eq!(run(&program, arch, 249, NONE), errno(libc::EPERM), "request_key is never allowed");
        assert_eq!(run(&program, arch, 203, NONE), errno(libc::EPERM), "the CPU lock");
        assert_eq!(run(&program, ARCH_I386, 241, NONE), errno(libc::EPERM), "the CPU lock through int 0x80");
        assert_eq!(run(&program, arch, 319, NONE), errno(libc::ENOSYS), "memfd_create under a memory bound");
        let memfds = FilterPlan { declared: SyscallGroups::NONE.with(SyscallGroup::MemfdCreate), ..plan };
        assert_eq!(run(&program_for(memfds), arch, 319, NONE), ALLOW, "memfd_create declared");
        assert_eq!(run(&program, arch, 29, NONE), errno(libc::ENOSYS), "shmget under a memory bound");
        assert_eq!(run(&program, ARCH_I386, 117, [23, 0, 0, 0, 0, 0]), errno(libc::ENOSYS), "ipc(SHMGET)");
        assert_eq!(run(&program, ARCH_I386, 117, [21, 0, 0, 0, 0, 0]), ALLOW, "ipc(SHMAT) of what exists");
        assert_eq!(run(&program, ARCH_AARCH64, 186, NONE), errno(libc::ENOSYS), "msgget");
        assert_eq!(run(&program_for(FilterPlan::default()), arch, 29, NONE), ALLOW, "shmget without a bound");
    }

    #[test]
    fn the_numbers_are_this_architectures_own() {
        let Some(native) = abis().map(|abis| abis[0].numbers) else { return };
        let table = [
            (Call::SchedSetaffinity, libc::SYS_sched_setaffinity),
            (Call::AddKey, libc::SYS_add_key),
            (Call::RequestKey, libc::SYS_request_key),
            (Call::Keyctl, libc::SYS_keyctl),
            (Call::Bpf, libc::SYS_bpf),
            (Call::PerfEventOpen, libc::SYS_perf_event_open),
            (Call::Userfaultfd, libc::SYS_userfaultfd),
            (Call::MemfdCreate, libc::SYS_memfd_create),
            (Call::Shmget, libc::SYS_shmget),
            (Call::Msgget, libc::SYS_msgget),
            (Call::KexecLoad, libc::SYS_kexec_load),
            (Call::KexecFileLoad, libc::SYS_kexec_file_load),
            (Call::InitModule, libc::SYS_init_module),
            (Call::FinitModule, libc::SYS_finit_module),
            (Call::DeleteModule, libc::SYS_delete_module),
            (Call::Swapon, libc::SYS_swapon),
            (Call::Swapoff, libc::SYS_swapoff),
            (Call::Reboot, libc::SYS_reboot),
            (Call::IoUringSetup, libc::SYS_io_uring_setup),
            (Call::IoUringEnter, libc::SYS_io_uring_enter),
            (Call::IoUringRegister, libc::SYS_io_uring_register),
            (Call::Clone3, libc::SYS_clone3),
        ];
        for (call, number) in table {
            assert_eq!(native(call)[0], number as u32, "{call:?}");
        }
    }
}
