//! [`Ahead`]: the next line of the other family, traced on a helper thread
//! while the run traces the current one (or, with one core or no thread to
//! be had, here when it is asked for: the same line either way). With it go
//! its family's store and queued seeds; after tracing, the seeds a pop would
//! not keep are taken off the top of the queue (pruned).

use super::line::{LineCx, Traced};
use crate::city::tensor::seeds::{Part, Ticket};
use crate::city::tensor::store::Store;
use crate::city::tensor::trace::{Family, Scratch};
use glam::DVec2;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::thread::Scope;
use std::time::{Duration, Instant};

/// A line to trace ahead: its family's store, queued seeds and the buffers
/// lent to it, then what [`LineCx::trace`] takes.
struct Job<'a> {
    cx: LineCx<'a>,
    store: Store,
    seeds: Part,
    scratch: Scratch,
    what: (Family, DVec2, u32),
    budget: u64,
}

/// What comes back of a [`Job`].
pub(super) struct Done {
    pub store: Store,
    pub seeds: Part,
    /// The seeds pruned, best first (the line's own among them if it was
    /// kept: it lies on it).
    pub pruned: Vec<Ticket>,
    /// Steps taken.
    pub used: u64,
    pub line: Option<Traced>,
    scratch: Scratch,
}

impl Job<'_> {
    fn run(mut self) -> Done {
        let cx = &self.cx;
        let (used, line) = cx.trace(&mut self.store, &mut self.scratch, self.what, self.budget);
        let mut pruned = Vec::new();
        let store = &self.store;
        let near = |p: DVec2| store.any_within(p, cx.dsep / cx.density.at(p), None);
        self.seeds.prune(near, &mut pruned);
        Done {
            store: self.store,
            seeds: self.seeds,
            pruned,
            used,
            line,
            scratch: self.scratch,
        }
    }
}

/// Where lines traced ahead are traced.
enum Worker<'a> {
    /// On a helper thread (ends when the sender is dropped).
    Thread(Sender<Job<'a>>, Receiver<Done>),
    /// Here, when finished.
    Here,
}

/// Traces a line of one family while the caller traces one of the other.
pub(super) struct Ahead<'a> {
    worker: Worker<'a>,
    /// The line being traced ahead, on `Here`: its job, until finished.
    job: Option<Job<'a>>,
    /// The helper's buffers, between jobs.
    scratch: Scratch,
    on: bool,
}

impl<'a> Ahead<'a> {
    /// With `on`, lines are traced ahead: on a helper thread in `scope` if
    /// this machine has a second core and a thread can be started, else
    /// here. Without, none is (see [`on`](Self::on)).
    pub fn new<'s>(scope: &'s Scope<'s, '_>, on: bool) -> Self
    where
        'a: 's,
    {
        let cores = crate::city::tensor::cores();
        let worker = if on && cores > 1 {
            let (jobs, inbox) = channel::<Job>();
            let (outbox, done) = channel::<Done>();
            let spawned = std::thread::Builder::new().spawn_scoped(scope, move || {
                while let Some(job) = receive(&inbox) {
                    if outbox.send(job.run()).is_err() {
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
            worker,
            job: None,
            scratch: Scratch::default(),
            on,
        }
    }

    /// Whether lines are to be traced ahead.
    pub fn on(&self) -> bool {
        self.on
    }

    /// Starts tracing `what` (family, seed, line id) with `cx` into `store`,
    /// its family's, with `seeds`, its family's queued seeds: both are lent
    /// until [`finish`](Self::finish).
    pub fn start(
        &mut self,
        cx: LineCx<'a>,
        (store, seeds): (Store, Part),
        what: (Family, DVec2, u32),
        budget: u64,
    ) {
        let job = Job {
            cx,
            store,
            seeds,
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

    /// Waits for the line started last.
    pub fn finish(&mut self) -> Done {
        let mut done = match (self.job.take(), &self.worker) {
            (Some(job), _) => job.run(),
            (None, Worker::Thread(_, done)) => receive(done).expect("the helper thread answers"),
            (None, Worker::Here) => unreachable!("finish follows start"),
        };
        self.scratch = std::mem::take(&mut done.scratch);
        done
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
