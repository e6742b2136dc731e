//! Database work of the hot token path done in batches: concurrent callers hand their job to
//! one task, which takes everything waiting (up to a bound) and does it in one statement or
//! transaction — one trip to the database's worker instead of one per caller. Each caller still
//! waits for its own answer, so nothing is answered from memory or before it is done.
use crate::storage::DynStore;
use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::sync::{mpsc, oneshot};

/// Most jobs one batch holds.
const MAX_BATCH: usize = 256;
/// Jobs waiting for the task at most; beyond this, callers wait to hand theirs over.
const QUEUE: usize = 4096;

/// The answers of one batch: one per job, in the jobs' order.
pub(crate) type Answers<A> = Pin<Box<dyn Future<Output = Vec<A>> + Send>>;
/// What a batch does.
pub(crate) type Work<J, A> = fn(DynStore, Vec<J>) -> Answers<A>;

type Job<J, A> = (J, oneshot::Sender<A>);

/// The task that does one kind of work in batches, started on first use (on the runtime of
/// whoever uses it first).
pub(crate) struct Batcher<J, A> {
    work: Work<J, A>,
    sender: OnceLock<mpsc::Sender<Job<J, A>>>,
    /// Jobs handed over and not done yet (waiting or in the batch being done).
    pending: std::sync::Arc<AtomicUsize>,
}

impl<J, A> std::fmt::Debug for Batcher<J, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batcher")
            .field("started", &self.sender.get().is_some())
            .finish()
    }
}

/// What became of a job handed to a [`Batcher`].
pub(crate) enum Handed<J, A> {
    /// Done, with its answer.
    Done(A),
    /// Not taken (the task's runtime is gone): the caller does it alone.
    Refused(J),
    /// Taken, but the task stopped before answering (its runtime shut down).
    Lost,
}

impl<J: Send + 'static, A: Send + 'static> Batcher<J, A> {
    pub(crate) fn new(work: Work<J, A>) -> Self {
        Self {
            work,
            sender: OnceLock::new(),
            pending: std::sync::Arc::default(),
        }
    }

    /// Hands `job` over and waits for its answer.
    pub(crate) async fn run(&self, store: &DynStore, job: J) -> Handed<J, A> {
        let (done, answer) = oneshot::channel();
        match self.hand(store, job, done).await {
            Ok(()) => answer.await.map_or(Handed::Lost, Handed::Done),
            Err(job) => Handed::Refused(job),
        }
    }

    /// Hands `job` over without waiting for it to be done: only for a place in the queue (a
    /// full queue makes the caller wait, so nothing is dropped under load). Its answer goes
    /// nowhere; the work reports its own failures. `Err(job)` when no task takes it (its
    /// runtime is gone).
    pub(crate) async fn run_detached(&self, store: &DynStore, job: J) -> Result<(), J> {
        let (done, _) = oneshot::channel();
        self.hand(store, job, done).await
    }

    async fn hand(&self, store: &DynStore, job: J, done: oneshot::Sender<A>) -> Result<(), J> {
        let sender = self.sender.get_or_init(|| {
            let (tx, rx) = mpsc::channel(QUEUE);
            tokio::spawn(serve(store.clone(), self.work, rx, self.pending.clone()));
            tx
        });
        // A place first: a caller dropped while it waits for one has handed nothing over.
        let Ok(place) = sender.reserve().await else {
            return Err(job);
        };
        self.pending.fetch_add(1, Ordering::SeqCst);
        place.send((job, done));
        Ok(())
    }

    /// Waits until every job handed over is done, at most `limit` (at shutdown: rows handed
    /// over without waiting get written). Whether everything was.
    pub(crate) async fn drain(&self, limit: std::time::Duration) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        while self.pending.load(Ordering::SeqCst) > 0 {
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        true
    }
}

/// Takes what waits (up to [`MAX_BATCH`]), does it, and answers each caller.
async fn serve<J, A>(
    store: DynStore,
    work: Work<J, A>,
    mut rx: mpsc::Receiver<Job<J, A>>,
    pending: std::sync::Arc<AtomicUsize>,
) {
    while let Some(first) = rx.recv().await {
        let mut jobs = vec![first];
        while jobs.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(job) => jobs.push(job),
                Err(_) => break,
            }
        }
        let (jobs, callers): (Vec<J>, Vec<_>) = jobs.into_iter().unzip();
        // Counted done however the batch ends (answered, failed, or the task dropped).
        let _done = Done(&pending, callers.len());
        let answers = work(store.clone(), jobs).await;
        for (caller, answer) in callers.into_iter().zip(answers) {
            let _ = caller.send(answer);
        }
    }
}

/// Takes a batch's jobs off the pending count when dropped.
struct Done<'a>(&'a AtomicUsize, usize);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(self.1, Ordering::SeqCst);
    }
}
