//! Two halves of a job side by side on scoped threads (no pool), where the
//! machine has the cores.

/// The cores this process may use (asked once: asking reads the system's
/// limits, microseconds each time).
pub(crate) fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `a()` and `b()`, on two threads if `worth` it and there are two cores
/// (`b` on a thread of its own if one can be started, else here after `a`).
pub(crate) fn both<A, B: Send>(
    worth: bool,
    a: impl FnOnce() -> A,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    if !worth || cores() < 2 {
        return (a(), b());
    }
    let b = std::sync::Mutex::new(Some(b));
    let take = || b.lock().ok().and_then(|mut b| b.take());
    std::thread::scope(|s| {
        let spawned = std::thread::Builder::new().spawn_scoped(s, || take().map(|b| b()));
        let a = a();
        let b = match spawned {
            Ok(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => None,
        };
        (
            a,
            b.unwrap_or_else(|| take().expect("not started, so still here")()),
        )
    })
}
