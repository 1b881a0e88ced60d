//! Worker threads for a smooth frame on few cores.
//!
//! Chunks, ribbons, object cells, roads and the map overlay are built on
//! [`ReliefWorkers`]: threads of our own, below the frame's scheduling
//! priority, fed through a lock-free queue. The frame never takes a lock a
//! worker could hold: with Bevy's async pool, spawning a task locks the
//! executor's task list, which a low-priority worker finishing a task also
//! locks; when that worker is preempted mid-way the frame waits for it
//! (priority inversion: single spawns of 0.4–1.6 ms were measured here).

use bevy::app::{TaskPoolOptions, TaskPoolPlugin};
use bevy::prelude::Resource;
use concurrent_queue::ConcurrentQueue;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::Thread;

/// How much lower the workers' priority is (a Unix "nice" increment).
pub const WORKER_NICENESS: i32 = 10;

type Work = Box<dyn FnOnce() + Send>;

/// The worker threads (a cheap handle; clones share them). The threads end
/// when the last handle is dropped. Insert one before adding the plugin to
/// choose the thread count; by default there is one per core.
#[derive(Resource, Clone)]
pub struct ReliefWorkers(Arc<Owner>);

/// Stops the threads when the last handle goes.
struct Owner(Arc<Shared>);

struct Shared {
    queue: ConcurrentQueue<Work>,
    threads: OnceLock<Vec<Thread>>,
    stop: AtomicBool,
}

impl Default for ReliefWorkers {
    /// One worker per core.
    fn default() -> Self {
        Self::new(std::thread::available_parallelism().map_or(2, |n| n.get()))
    }
}

impl ReliefWorkers {
    /// `threads` workers (at least one), each at [`WORKER_NICENESS`] below
    /// the thread that creates them.
    pub fn new(threads: usize) -> Self {
        let shared = Arc::new(Shared {
            queue: ConcurrentQueue::unbounded(),
            threads: OnceLock::new(),
            stop: AtomicBool::new(false),
        });
        let handles = (0..threads.max(1))
            .filter_map(|i| {
                let s = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(format!("relief worker {i}"))
                    .spawn(move || run(&s))
                    .ok()
                    .map(|h| h.thread().clone())
            })
            .collect();
        let _ = shared.threads.set(handles);
        Self(Arc::new(Owner(shared)))
    }

    /// How many threads run.
    pub fn threads(&self) -> usize {
        self.0.0.threads.get().map_or(0, Vec::len)
    }

    /// Queues `work`; its result is collected from the returned [`Job`].
    /// Jobs start in the order they are queued. Never blocks.
    pub fn spawn<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> Job<T> {
        let slot = Arc::new(Slot {
            cancelled: AtomicBool::new(false),
            done: AtomicBool::new(false),
            value: Mutex::new(None),
        });
        let s = Arc::clone(&slot);
        let job: Work = Box::new(move || {
            if s.cancelled.load(Ordering::Acquire) {
                return;
            }
            let v = work();
            *s.value.lock().unwrap_or_else(|e| e.into_inner()) = Some(v);
            s.done.store(true, Ordering::Release);
        });
        let shared = &self.0.0;
        if shared.queue.push(job).is_ok() {
            shared.wake_all();
        }
        Job(slot)
    }
}

impl Shared {
    fn wake_all(&self) {
        for t in self.threads.get().into_iter().flatten() {
            t.unpark();
        }
    }
}

impl Drop for Owner {
    fn drop(&mut self) {
        self.0.stop.store(true, Ordering::Release);
        self.0.queue.close();
        self.0.wake_all();
    }
}

fn run(shared: &Shared) {
    lower_this_threads_priority();
    while !shared.stop.load(Ordering::Acquire) {
        match shared.queue.pop() {
            // A panicking job loses its result (its `Job` never finishes),
            // not the worker.
            Ok(job) => {
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
            }
            Err(_) => std::thread::park(),
        }
    }
}

struct Slot<T> {
    cancelled: AtomicBool,
    done: AtomicBool,
    value: Mutex<Option<T>>,
}

/// A queued piece of work. Dropping it cancels the work if it has not
/// started.
pub struct Job<T>(Arc<Slot<T>>);

impl<T> Job<T> {
    /// Whether the result is ready.
    pub fn is_finished(&self) -> bool {
        self.0.done.load(Ordering::Acquire)
    }

    /// The result, once ready (then `None` again). The lock it takes is
    /// free by then: the worker released it before saying it was done.
    pub fn take(&mut self) -> Option<T> {
        if !self.is_finished() {
            return None;
        }
        self.0
            .value
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }
}

impl<T> Drop for Job<T> {
    fn drop(&mut self) {
        self.0.cancelled.store(true, Ordering::Release);
    }
}

/// Bevy's default task pools with the async-compute workers at a lower
/// priority (Linux; elsewhere unchanged), for a game's own async work. The
/// plugin's work runs on [`ReliefWorkers`] and does not need it.
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn wait<T>(job: &mut Job<T>) -> T {
        let t0 = Instant::now();
        loop {
            if let Some(v) = job.take() {
                return v;
            }
            assert!(t0.elapsed() < Duration::from_secs(10), "job never finished");
            std::thread::yield_now();
        }
    }

    #[test]
    fn jobs_run_and_return_their_results() {
        let w = ReliefWorkers::new(2);
        assert_eq!(w.threads(), 2);
        let mut jobs: Vec<Job<u64>> = (0..100u64).map(|i| w.spawn(move || i * i)).collect();
        let sum: u64 = jobs.iter_mut().map(wait).sum();
        assert_eq!(sum, (0..100u64).map(|i| i * i).sum::<u64>());
        // Taken once.
        assert!(jobs[0].take().is_none() && jobs[0].is_finished());
    }

    #[test]
    fn a_dropped_job_does_not_run_and_a_panic_keeps_the_worker() {
        let w = ReliefWorkers::new(1);
        let ran = Arc::new(AtomicBool::new(false));
        // The only worker is kept busy until the second job is dropped.
        let gate = Arc::new(AtomicBool::new(false));
        let g = Arc::clone(&gate);
        let mut first = w.spawn(move || {
            while !g.load(Ordering::Acquire) {
                std::thread::yield_now();
            }
        });
        let r = Arc::clone(&ran);
        drop(w.spawn(move || r.store(true, Ordering::Release)));
        let mut boom = w.spawn(|| -> u8 { panic!("a job that panics") });
        gate.store(true, Ordering::Release);
        wait(&mut first);
        let mut after = w.spawn(|| 7);
        assert_eq!(wait(&mut after), 7);
        assert!(!ran.load(Ordering::Acquire));
        assert!(boom.take().is_none());
    }

    #[test]
    fn threads_end_with_the_last_handle() {
        let w = ReliefWorkers::new(2);
        let weak = Arc::downgrade(&w.0.0);
        let w2 = w.clone();
        drop(w);
        let mut j = w2.spawn(|| 1);
        assert_eq!(wait(&mut j), 1);
        drop((w2, j));
        let t0 = Instant::now();
        while weak.strong_count() > 0 {
            assert!(
                t0.elapsed() < Duration::from_secs(10),
                "threads still hold the queue"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}
