//! Worker threads for a smooth frame on few cores.
//!
//! Chunks, ribbons, object cells, roads and the map overlay are built on
//! [`ReliefWorkers`]: threads of our own fed through a lock-free queue (a
//! job wakes one parked worker, none while all are busy). The
//! frame never takes a lock a worker could hold: with Bevy's async pool,
//! spawning a task locks the executor's task list, which a low-priority
//! worker finishing a task also locks; when that worker is preempted mid-way
//! the frame waits for it (priority inversion: single spawns of 0.4–1.6 ms
//! were measured here).
//!
//! On Linux the workers run in the idle scheduling class (`SCHED_IDLE`): a
//! frame thread that wakes takes a core from them at once. At nice +10 it
//! often waited for the scheduler's next tick, up to 4 ms (measured with
//! the fly-through's per-thread run delays). Idle-class threads get almost
//! nothing while the game keeps every core busy, so one reserve thread at
//! nice +10 runs queued jobs whenever no worker has taken one for
//! [`STARVED`]: streaming slows down under load but never stops.
//!
//! [`SingleThreadedSchedulesPlugin`] runs the app's main schedules on one
//! thread, and the renderer's on the render thread: handing short systems
//! to other threads costs more than it gains, on 2 cores and on 16.

use bevy::app::{
    App, First, FixedFirst, FixedLast, FixedPostUpdate, FixedPreUpdate, FixedUpdate, Last, Plugin,
    PostUpdate, PreUpdate, RunFixedMainLoop, TaskPoolOptions, TaskPoolPlugin, Update,
};
use bevy::ecs::schedule::{ScheduleLabel, SingleThreadedExecutor};
use bevy::prelude::Resource;
use bevy::render::{ExtractSchedule, Render, RenderApp};
use concurrent_queue::ConcurrentQueue;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// How much lower the reserve thread's priority is (a Unix "nice"
/// increment); also the workers' where the idle class is refused.
pub const WORKER_NICENESS: i32 = 10;

/// How long queued jobs wait with no worker taking one before the reserve
/// thread helps.
pub const STARVED: Duration = Duration::from_millis(200);

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
    /// The workers, then the reserve thread.
    threads: OnceLock<Vec<Thread>>,
    /// How many of them are workers.
    workers: OnceLock<usize>,
    /// Per worker, whether it is parked (or about to be) for want of a job.
    sleeping: Box<[AtomicBool]>,
    /// Workers woken for a job, in all.
    woken: AtomicU64,
    stop: AtomicBool,
    /// When a worker last took a job or the queue last filled from empty,
    /// microseconds since `epoch`: the reserve's clock.
    progress: AtomicU64,
    epoch: Instant,
}

impl Default for ReliefWorkers {
    /// One worker per core.
    fn default() -> Self {
        Self::new(std::thread::available_parallelism().map_or(2, |n| n.get()))
    }
}

impl ReliefWorkers {
    /// `threads` workers (at least one) in the idle scheduling class, and
    /// the reserve thread 10 nice levels below the thread that
    /// creates them (see the module docs).
    pub fn new(threads: usize) -> Self {
        let shared = Arc::new(Shared {
            queue: ConcurrentQueue::unbounded(),
            threads: OnceLock::new(),
            workers: OnceLock::new(),
            sleeping: (0..threads.max(1))
                .map(|_| AtomicBool::new(false))
                .collect(),
            woken: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            progress: AtomicU64::new(0),
            epoch: Instant::now(),
        });
        // Worker `i`, or the reserve thread for `None`.
        let spawn = |name: String, worker: Option<usize>| {
            let s = Arc::clone(&shared);
            std::thread::Builder::new()
                .name(name)
                .spawn(move || match worker {
                    Some(i) => run(&s, i),
                    None => run_reserve(&s),
                })
                .ok()
                .map(|h| h.thread().clone())
        };
        // Workers start until one cannot (then there are fewer); worker `i`
        // is `threads[i]` and has `sleeping[i]`.
        let mut handles: Vec<Thread> = Vec::new();
        for i in 0..threads.max(1) {
            match spawn(format!("relief worker {i}"), Some(handles.len())) {
                Some(t) => handles.push(t),
                None => break,
            }
        }
        let workers = handles.len();
        let _ = shared.workers.set(workers);
        handles.extend(spawn("relief reserve".into(), None));
        let _ = shared.threads.set(handles);
        Self(Arc::new(Owner(shared)))
    }

    /// How many workers run (the reserve thread aside).
    pub fn threads(&self) -> usize {
        self.0.0.workers.get().copied().unwrap_or(0)
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
        if shared.queue.is_empty() {
            shared.progress.store(shared.now_us(), Ordering::Release);
        }
        if shared.queue.push(job).is_ok() {
            shared.wake_one();
        }
        Job(slot)
    }

    /// Drops `value` on a worker: freeing a large structure (a replaced
    /// region) costs the frame nothing.
    pub fn free<T: Send + 'static>(&self, value: T) {
        // Even a cancelled job's closure is dropped by the worker that pops it.
        drop(self.spawn(move || drop(value)));
    }
}

impl Shared {
    /// Wakes one parked worker for a job just queued, if any is parked
    /// (busy ones take it when they finish theirs): a job wakes one thread,
    /// not every core's.
    fn wake_one(&self) {
        // Pairs with the worker's fence between saying it sleeps and looking
        // at the queue: either it sees the job or this sees it sleeping.
        std::sync::atomic::fence(Ordering::SeqCst);
        let threads = self.threads.get().map_or(&[][..], Vec::as_slice);
        let asleep = (self.sleeping.iter().zip(threads))
            .find(|(s, _)| s.load(Ordering::Relaxed) && s.swap(false, Ordering::AcqRel));
        if let Some((_, t)) = asleep {
            self.woken.fetch_add(1, Ordering::Relaxed);
            t.unpark();
        }
    }

    /// Wakes every thread, the reserve too (to stop).
    fn wake_all(&self) {
        for t in self.threads.get().map_or(&[][..], Vec::as_slice) {
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

/// Worker `i`: runs jobs, and parks while there are none.
fn run(shared: &Shared, i: usize) {
    enter_idle_class();
    let sleeping = &shared.sleeping[i];
    while !shared.stop.load(Ordering::Acquire) {
        match shared.queue.pop() {
            Ok(job) => {
                shared.progress.store(shared.now_us(), Ordering::Release);
                run_job(job);
            }
            Err(_) => {
                sleeping.store(true, Ordering::Release);
                // (See `wake_one`.) A job queued before the flag was seen
                // is seen here.
                std::sync::atomic::fence(Ordering::SeqCst);
                if shared.queue.is_empty() && !shared.stop.load(Ordering::Acquire) {
                    std::thread::park();
                }
                sleeping.store(false, Ordering::Release);
            }
        }
    }
}

/// The reserve: looks every half [`STARVED`] and runs queued jobs while no
/// worker has taken one for that long.
fn run_reserve(shared: &Shared) {
    lower_this_threads_priority();
    let starved = STARVED.as_micros() as u64;
    while !shared.stop.load(Ordering::Acquire) {
        std::thread::park_timeout(STARVED / 2);
        while !shared.stop.load(Ordering::Acquire)
            && shared.now_us() >= shared.progress.load(Ordering::Acquire) + starved
        {
            match shared.queue.pop() {
                Ok(job) => run_job(job),
                Err(_) => break,
            }
        }
    }
}

/// A panicking job loses its result (its `Job` never finishes), not the
/// thread.
fn run_job(job: Work) {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
}

impl Shared {
    fn now_us(&self) -> u64 {
        self.epoch.elapsed().as_micros() as u64
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

/// Moves the calling thread to the idle scheduling class (Linux), or where
/// that is refused lowers it by [`WORKER_NICENESS`].
fn enter_idle_class() {
    #[cfg(target_os = "linux")]
    {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: a plain system call on the calling thread (0) with a valid
        // parameter block.
        if unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) } == 0 {
            return;
        }
    }
    lower_this_threads_priority();
}

/// Runs the app's main schedules (`First` to `Last`, the fixed-step ones
/// too) on the single-threaded executor when the machine has at most
/// `max_cores` cores (any number, by default). A system handed to another
/// thread waits for that thread to wake, and the plugin's systems are short:
/// on a 16-core Xeon the headless frame took p50 0.52–0.79 ms on one thread
/// against 0.88–1.25 ms with Bevy's multi-threaded executor, at 2, 4, 8 and
/// 16 cores alike (README, Performance). With `render` (the default) the
/// renderer's extract and render schedules run on one thread too
/// ([`single_threaded_render_schedules`]): Bevy's render thread then took
/// p50 2.5–2.6 ms a frame on 2 cores against 3.1–3.3 ms, p99 5.0–5.4 against
/// 6.3–7.4 ms. Part of [`ReliefPlugins`](crate::plugin::ReliefPlugins), so
/// the default plugin needs nothing more. A game whose own systems gain from
/// running side by side disables it
/// (`ReliefPlugin::default().plugins().build().disable::<SingleThreadedSchedulesPlugin>()`)
/// or sets `max_cores` or `render`.
#[derive(Clone, Copy, Debug)]
pub struct SingleThreadedSchedulesPlugin {
    /// The largest core count that gets one thread.
    pub max_cores: usize,
    /// The renderer's schedules too (`ExtractSchedule` and `Render` of
    /// Bevy's `RenderApp`, where there is one).
    pub render: bool,
}

impl Default for SingleThreadedSchedulesPlugin {
    fn default() -> Self {
        Self {
            max_cores: usize::MAX,
            render: true,
        }
    }
}

impl SingleThreadedSchedulesPlugin {
    fn applies(&self) -> bool {
        std::thread::available_parallelism().map_or(1, |n| n.get()) <= self.max_cores
    }
}

impl Plugin for SingleThreadedSchedulesPlugin {
    fn build(&self, app: &mut App) {
        if self.applies() {
            single_threaded_schedules(app);
        }
    }

    // The renderer's sub-app exists once every plugin is built.
    fn finish(&self, app: &mut App) {
        if self.render && self.applies() {
            single_threaded_render_schedules(app);
        }
    }
}

/// Puts the main schedules on the single-threaded executor.
pub fn single_threaded_schedules(app: &mut App) {
    fn one(app: &mut App, label: impl ScheduleLabel) {
        app.edit_schedule(label, |s| {
            s.set_executor(SingleThreadedExecutor::new());
        });
    }
    one(app, First);
    one(app, PreUpdate);
    one(app, RunFixedMainLoop);
    one(app, FixedFirst);
    one(app, FixedPreUpdate);
    one(app, FixedUpdate);
    one(app, FixedPostUpdate);
    one(app, FixedLast);
    one(app, Update);
    one(app, PostUpdate);
    one(app, Last);
}

/// Puts the renderer's extract and render schedules on the single-threaded
/// executor (nothing without Bevy's `RenderApp`). Bevy's systems there still
/// spread their own loops over the compute threads. On macOS and iOS the
/// render schedule keeps Bevy's executor: it sends the system that creates
/// window surfaces to the main thread, as those systems require, and one
/// thread would run it on the render thread.
pub fn single_threaded_render_schedules(app: &mut App) {
    if let Some(render) = app.get_sub_app_mut(RenderApp) {
        render.edit_schedule(ExtractSchedule, |s| {
            s.set_executor(SingleThreadedExecutor::new());
        });
        #[cfg(not(any(target_os = "macos", target_os = "ios")))]
        render.edit_schedule(Render, |s| {
            s.set_executor(SingleThreadedExecutor::new());
        });
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

    /// A job queued while the workers park, or just after, is never left
    /// waiting (a job wakes one parked worker, not all of them).
    #[test]
    fn jobs_queued_as_the_workers_park_are_taken() {
        let w = ReliefWorkers::new(4);
        for round in 0..300u64 {
            // Alone, then in a burst; the workers park in between (or are
            // parking when the next comes).
            let n = 1 + round % 5;
            let mut jobs: Vec<Job<u64>> = (0..n).map(|i| w.spawn(move || round + i)).collect();
            let sum: u64 = jobs.iter_mut().map(wait).sum();
            assert_eq!(sum, n * round + n * (n - 1) / 2);
            if round % 3 == 0 {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
        // Every worker parks, and its flag says so (idle-class threads may
        // wait for a core on a busy machine).
        let sleeping = &w.0.0.sleeping;
        let all_asleep = || {
            let t0 = Instant::now();
            while !sleeping.iter().all(|s| s.load(Ordering::Acquire)) {
                assert!(
                    t0.elapsed() < Duration::from_secs(10),
                    "a worker never parked"
                );
                std::thread::sleep(Duration::from_millis(1));
            }
        };
        all_asleep();
        // One job wakes one of them.
        let woken = w.0.0.woken.load(Ordering::Acquire);
        let mut one = w.spawn(|| 1);
        assert_eq!(wait(&mut one), 1);
        assert_eq!(w.0.0.woken.load(Ordering::Acquire), woken + 1);
        all_asleep();
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
    fn freed_values_are_dropped_on_a_worker() {
        struct Tell(std::sync::mpsc::Sender<std::thread::ThreadId>);
        impl Drop for Tell {
            fn drop(&mut self) {
                let _ = self.0.send(std::thread::current().id());
            }
        }
        let w = ReliefWorkers::new(1);
        let (tx, rx) = std::sync::mpsc::channel();
        w.free(Tell(tx));
        let dropped_on = rx.recv_timeout(std::time::Duration::from_secs(10));
        assert!(dropped_on.is_ok_and(|t| t != std::thread::current().id()));
    }

    #[test]
    fn the_reserve_runs_jobs_while_every_worker_is_busy() {
        let w = ReliefWorkers::new(1);
        let (started, gate) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicBool::new(false)),
        );
        let (s, g) = (Arc::clone(&started), Arc::clone(&gate));
        let mut blocker = w.spawn(move || {
            s.store(true, Ordering::Release);
            while !g.load(Ordering::Acquire) {
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        let t0 = Instant::now();
        while !started.load(Ordering::Acquire) {
            assert!(
                t0.elapsed() < Duration::from_secs(10),
                "the worker never started"
            );
            std::thread::yield_now();
        }
        // The only worker is taken: the reserve runs this one.
        let mut next = w.spawn(|| 7);
        assert_eq!(wait(&mut next), 7);
        assert!(!blocker.is_finished());
        gate.store(true, Ordering::Release);
        wait(&mut blocker);
    }

    // On macOS and iOS the render schedule keeps Bevy's executor.
    #[cfg(not(any(target_os = "macos", target_os = "ios")))]
    #[test]
    fn the_renderer_s_schedules_run_on_the_thread_that_runs_them() {
        use bevy::app::SubApp;
        use bevy::ecs::schedule::Schedule;
        use bevy::prelude::{ResMut, Resource};
        use std::thread::ThreadId;
        #[derive(Resource, Default)]
        struct Ran(Vec<ThreadId>);
        fn note(mut ran: ResMut<Ran>) {
            std::thread::sleep(Duration::from_micros(200));
            ran.0.push(std::thread::current().id());
        }
        // A stand-in for Bevy's render sub-app: many systems that could run
        // side by side, on a pool with threads to run them.
        bevy::tasks::ComputeTaskPool::get_or_init(|| {
            bevy::tasks::TaskPoolBuilder::new().num_threads(4).build()
        });
        let mut app = App::new();
        let mut render = SubApp::new();
        render.init_resource::<Ran>();
        for label in [Render.intern(), ExtractSchedule.intern()] {
            render.add_schedule(Schedule::new(label));
            for _ in 0..8 {
                render.add_systems(label, note);
            }
        }
        app.insert_sub_app(RenderApp, render);
        // No renderer: nothing to do, and no panic.
        single_threaded_render_schedules(&mut App::new());
        app.add_plugins(SingleThreadedSchedulesPlugin::default());
        app.finish();
        let render = app.sub_app_mut(RenderApp);
        render.world_mut().run_schedule(ExtractSchedule);
        render.world_mut().run_schedule(Render);
        let ran = &render.world().resource::<Ran>().0;
        assert_eq!(ran.len(), 16);
        let here = std::thread::current().id();
        assert!(ran.iter().all(|&t| t == here), "{ran:?}");
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
