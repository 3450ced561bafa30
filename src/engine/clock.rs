//! CPU clocks: the per-thread clock that every job's timing side files use, and the process
//! clock (every thread) that `plan` measures units with.

/// CPU time consumed by the calling thread, in nanoseconds (0 if the clock is unavailable).
pub fn thread_cpu_ns() -> u64 {
    cpu_ns(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// CPU time consumed by every thread of the process, in nanoseconds (0 if the clock is
/// unavailable). A unit that parallelises inside (over rayon's pool) spends its time on the
/// pool's threads, which the caller's thread clock does not see.
pub fn process_cpu_ns() -> u64 {
    cpu_ns(libc::CLOCK_PROCESS_CPUTIME_ID)
}

fn cpu_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
