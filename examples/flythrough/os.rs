//! What the fly-through reads from Linux about its own threads and memory
//! (zeros elsewhere).

use super::Flight;

/// The calling (main) thread's CPU clock.
#[cfg(target_os = "linux")]
pub fn main_thread_clock() -> libc::clockid_t {
    let mut clock: libc::clockid_t = libc::CLOCK_THREAD_CPUTIME_ID;
    // SAFETY: the calling thread's own handle and a valid out pointer.
    unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) };
    clock
}

/// The main thread's CPU time so far, ns (0 off Linux).
pub fn main_thread_cpu(_flight: &Flight) -> u64 {
    #[cfg(target_os = "linux")]
    {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: a valid clock id and out pointer.
        if unsafe { libc::clock_gettime(_flight.main_clock, &mut t) } == 0 {
            return t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64;
        }
    }
    0
}

/// The summed time this process's threads, the plugin's workers aside, have
/// spent runnable but not running, ns (Linux schedstat; 0 elsewhere).
pub fn frame_threads_run_delay() -> u64 {
    let tasks = std::fs::read_dir("/proc/self/task").into_iter().flatten();
    tasks
        .flatten()
        .filter(|t| {
            let name = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
            !name.starts_with("relief ")
        })
        .filter_map(|t| {
            let stat = std::fs::read_to_string(t.path().join("schedstat")).ok()?;
            stat.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .sum()
}

/// Resident memory in KiB (Linux; 0 elsewhere).
pub fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))?
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}
