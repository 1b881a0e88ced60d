//! Task pools for a smooth frame on few cores: the async-compute workers
//! that build chunks, ribbons, object cells and roads run at a lower
//! scheduling priority than the frame, so when every core is busy the OS
//! lets the frame finish first and the workers take what is left.

use bevy::app::{TaskPoolOptions, TaskPoolPlugin};
use std::sync::Arc;

/// How much lower the workers' priority is (a Unix "nice" increment).
pub const WORKER_NICENESS: i32 = 10;

/// Bevy's default task pools, with the async-compute workers at a lower
/// priority (Linux; elsewhere unchanged). Use it in place of the default:
/// `DefaultPlugins.set(relief_task_pools())`.
pub fn relief_task_pools() -> TaskPoolPlugin {
    let mut options = TaskPoolOptions::default();
    options.async_compute.on_thread_spawn = Some(Arc::new(lower_this_threads_priority));
    TaskPoolPlugin {
        task_pool_options: options,
    }
}

/// Lowers the calling thread's priority by [`WORKER_NICENESS`] (on Linux a
/// thread has its own nice value); a failure leaves it as it was.
pub fn lower_this_threads_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain system calls on the calling thread, no pointers.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        let now = libc::getpriority(libc::PRIO_PROCESS, tid);
        libc::setpriority(libc::PRIO_PROCESS, tid, now + WORKER_NICENESS);
    }
}
