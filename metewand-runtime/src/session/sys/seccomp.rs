//! The seccomp filter that keeps a worker on the CPUs it was started on, built once in the parent; the forked child
//! installs it last before `exec` (`child.rs`).

/// The seccomp program that makes `sched_setaffinity` fail with `EPERM` and allows every other system call, for
/// each ABI a process of this architecture can make system calls through (x86-64 with x32 and i386, AArch64 with
/// 32-bit Arm): a worker started on a slot's CPUs stays on them, whatever processes it makes. `None` where the
/// kernel has no seccomp filters (or their `errno` action) or the architecture's numbers are not known here.
pub(in crate::session) fn affinity_lock() -> Option<&'static [libc::sock_filter]> {
    static PROGRAM: std::sync::OnceLock<Option<Vec<libc::sock_filter>>> = std::sync::OnceLock::new();
    PROGRAM.get_or_init(|| seccomp_errno_works().then(affinity_lock_program).flatten()).as_deref()
}

fn seccomp_errno_works() -> bool {
    #[allow(clippy::disallowed_methods, reason = "procfs, which only the kernel writes")]
    std::fs::read_to_string("/proc/sys/kernel/seccomp/actions_avail")
        .is_ok_and(|actions| actions.split_whitespace().any(|action| action == "errno"))
}

fn affinity_lock_program() -> Option<Vec<libc::sock_filter>> {
    // From the kernel's uapi `audit.h` and each ABI's system call table.
    const ARCH_X86_64: u32 = 0xc000_003e;
    const ARCH_I386: u32 = 0x4000_0003;
    const ARCH_AARCH64: u32 = 0xc000_00b7;
    const ARCH_ARM: u32 = 0x4000_0028;
    const X32: u32 = 0x4000_0000;
    let calls: &[(u32, u32)] = if cfg!(target_arch = "x86_64") {
        &[(ARCH_X86_64, 203), (ARCH_X86_64, X32 | 203), (ARCH_I386, 241)]
    } else if cfg!(target_arch = "aarch64") {
        &[(ARCH_AARCH64, 122), (ARCH_ARM, 241)]
    } else {
        return None;
    };
    let statement = |code: u32, k: u32| libc::sock_filter { code: code as u16, jt: 0, jf: 0, k };
    let jump_if_equal = |k: u32, jt: u8, jf: u8| libc::sock_filter {
        code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16,
        jt,
        jf,
        k,
    };
    // `struct seccomp_data`: the call's number at offset 0, the ABI's audit architecture at 4.
    let load = |offset: u32| statement(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, offset);
    let mut program = Vec::new();
    for (index, &(arch, number)) in calls.iter().enumerate() {
        // Four statements per call; after the last come "allow", then "refuse".
        let refuse = (4 * (calls.len() - index) - 4 + 1) as u8;
        program.extend([load(4), jump_if_equal(arch, 0, 2), load(0), jump_if_equal(number, refuse, 0)]);
    }
    program.push(statement(libc::BPF_RET | libc::BPF_K, libc::SECCOMP_RET_ALLOW));
    program.push(statement(libc::BPF_RET | libc::BPF_K, libc::SECCOMP_RET_ERRNO | libc::EPERM as u32));
    Some(program)
}
