//! [`Ahead`]: the next line of the other family, traced on a helper thread
//! while the run traces the current one (or, with one core or no thread to
//! be had, here when it is asked for: the same line either way).

use super::line::{LineCx, Traced};
use crate::city::tensor::store::Store;
use crate::city::tensor::trace::{Family, Scratch};
use glam::DVec2;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::thread::Scope;
use std::time::{Duration, Instant};

/// A line to trace ahead: its family's store and the buffers lent to it,
/// then what [`LineCx::trace`] takes.
struct Job {
    store: Store,
    scratch: Scratch,
    what: (Family, DVec2, u32),
    budget: u64,
}

/// The job's store and buffers back, and what [`LineCx::trace`] returned.
type Done = (Store, Scratch, (u64, Option<Traced>));

/// Where lines traced ahead are traced.
enum Worker {
    /// On a helper thread (ends when the sender is dropped).
    Thread(Sender<Job>, Receiver<Done>),
    /// Here, when finished.
    Here,
}

/// Traces a line of one family while the caller traces one of the other.
pub(super) struct Ahead<'a> {
    cx: LineCx<'a>,
    worker: Worker,
    /// The line being traced ahead, on `Here`: its job, until finished.
    job: Option<Job>,
    /// The helper's buffers, between jobs.
    scratch: Scratch,
    /// Whose store is lent.
    lent: usize,
}

impl<'a> Ahead<'a> {
    /// With `thread`, a helper thread in `scope` if this machine has a
    /// second core and a thread can be started; else tracing here.
    pub fn new<'s>(scope: &'s Scope<'s, '_>, cx: LineCx<'a>, thread: bool) -> Self
    where
        'a: 's,
    {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let worker = if thread && cores > 1 {
            let (jobs, inbox) = channel::<Job>();
            let (outbox, done) = channel::<Done>();
            let spawned = std::thread::Builder::new().spawn_scoped(scope, move || {
                while let Some(mut job) = receive(&inbox) {
                    let line = cx.trace(&mut job.store, &mut job.scratch, job.what, job.budget);
                    if outbox.send((job.store, job.scratch, line)).is_err() {
                        break;
                    }
                }
            });
            match spawned {
                Ok(_) => Worker::Thread(jobs, done),
                Err(_) => Worker::Here,
            }
        } else {
            Worker::Here
        };
        Self {
            cx,
            worker,
            job: None,
            scratch: Scratch::default(),
            lent: 0,
        }
    }

    /// Starts tracing `what` (family, seed, line id) into its family's
    /// store, which is lent until [`finish`](Self::finish).
    pub fn start(&mut self, stores: &mut [Store; 2], what: (Family, DVec2, u32), budget: u64) {
        let k = what.0.index();
        self.lent = k;
        let job = Job {
            store: std::mem::replace(&mut stores[k], Store::placeholder()),
            scratch: std::mem::take(&mut self.scratch),
            what,
            budget,
        };
        match &self.worker {
            Worker::Thread(jobs, _) => {
                if let Err(back) = jobs.send(job) {
                    self.worker = Worker::Here;
                    self.job = Some(back.0);
                }
            }
            Worker::Here => self.job = Some(job),
        }
    }

    /// Waits for the line started last and gives its store back: the
    /// steps it took, and the line.
    pub fn finish(&mut self, stores: &mut [Store; 2]) -> (u64, Option<Traced>) {
        let (store, scratch, line) = match (self.job.take(), &self.worker) {
            (Some(mut job), _) => {
                let line = (self.cx).trace(&mut job.store, &mut job.scratch, job.what, job.budget);
                (job.store, job.scratch, line)
            }
            (None, Worker::Thread(_, done)) => receive(done).expect("the helper thread answers"),
            (None, Worker::Here) => unreachable!("finish follows start"),
        };
        stores[self.lent] = store;
        self.scratch = scratch;
        line
    }
}

/// How long a thread waiting for the other keeps asking (yielding its core
/// between asks) before it sleeps: waking a sleeping thread takes tens of
/// microseconds, a good part of a line's tracing.
const POLL: Duration = Duration::from_millis(1);

/// The next message, asked for until [`POLL`] has passed, then waited for;
/// `None` once the sender is gone.
fn receive<T>(rx: &Receiver<T>) -> Option<T> {
    let start = Instant::now();
    loop {
        match rx.try_recv() {
            Ok(v) => return Some(v),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) if start.elapsed() > POLL => return rx.recv().ok(),
            Err(TryRecvError::Empty) => std::thread::yield_now(),
        }
    }
}
