//! Database work of the hot token path done in batches: concurrent callers hand their job to
//! one task, which takes everything waiting (up to a bound) and does it in one statement or
//! transaction — one trip to the database's worker instead of one per caller. Each caller still
//! waits for its own answer, so nothing is answered from memory or before it is done.
use crate::storage::DynStore;
use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;
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
        }
    }

    /// Hands `job` over and waits for its answer.
    pub(crate) async fn run(&self, store: &DynStore, job: J) -> Handed<J, A> {
        let sender = self.sender.get_or_init(|| {
            let (tx, rx) = mpsc::channel(QUEUE);
            tokio::spawn(serve(store.clone(), self.work, rx));
            tx
        });
        let (done, answer) = oneshot::channel();
        match sender.send((job, done)).await {
            Ok(()) => answer.await.map_or(Handed::Lost, Handed::Done),
            Err(mpsc::error::SendError((job, _))) => Handed::Refused(job),
        }
    }
}

/// Takes what waits (up to [`MAX_BATCH`]), does it, and answers each caller.
async fn serve<J, A>(store: DynStore, work: Work<J, A>, mut rx: mpsc::Receiver<Job<J, A>>) {
    while let Some(first) = rx.recv().await {
        let mut jobs = vec![first];
        while jobs.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(job) => jobs.push(job),
                Err(_) => break,
            }
        }
        let (jobs, callers): (Vec<J>, Vec<_>) = jobs.into_iter().unzip();
        let answers = work(store.clone(), jobs).await;
        for (caller, answer) in callers.into_iter().zip(answers) {
            let _ = caller.send(answer);
        }
    }
}
