//! The interpreter's forks and semaphores. Each side of a `Fork` runs on a thread of its
//! own, but only one side of a run executes at a time: the one holding the `Baton`, the
//! interpreter's shared state (memory, print sink, statistics, parallel-loop order). A side
//! hands the baton on only where it must wait: at an `Acquire` its semaphore cannot satisfy
//! yet, or at the end of a fork for the other side to finish. So the sides interleave at
//! semaphore waits, as concurrent tasks may, and a wait that no side can ever satisfy is
//! reported as a deadlock instead of hanging the run. Once a side fails, every semaphore wait
//! is satisfied, as native code's are (`runtime::parallel::tessera_fork`): the other sides
//! run to their ends, and the run reports the first failure.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard};

use super::memory::Memory;
use super::random::SplitMix64;
use super::InterpStats;
use crate::error::{Error, Result};
use crate::eval::print::PrintHandler;

/// What the sides of a run share, held by the side executing.
pub(super) struct Baton {
    pub(super) memory: Memory,
    pub(super) print: PrintHandler,
    pub(super) stats: InterpStats,
    pub(super) parallel_order: SplitMix64,
}

/// What a waiting task waits for.
#[derive(Clone, Copy)]
pub(super) enum Wait {
    /// `count` units of semaphore instance `semaphore`.
    Units { semaphore: usize, count: i64 },
    /// The end of task `task`.
    Finished(usize),
    /// Nothing but the baton (a task about to start).
    Baton,
}

/// The tasks and semaphores of one run. Task 0 is the run's own.
#[derive(Default)]
pub(super) struct Tasks {
    state: Mutex<TaskState>,
    wake: Condvar,
}

#[derive(Default)]
struct TaskState {
    /// The baton, while no task executes.
    parked: Option<Baton>,
    /// The units each semaphore instance holds.
    units: Vec<i64>,
    /// What each waiting task, by id, waits for.
    waiting: HashMap<usize, Wait>,
    /// Whether each task has ended, by id.
    finished: Vec<bool>,
    /// Some wait could never be satisfied: the semaphore waits fail.
    deadlocked: bool,
    /// A task failed: the semaphore waits are satisfied without taking units.
    failed: bool,
}

impl TaskState {
    fn ready(&self, wait: Wait) -> bool {
        match wait {
            Wait::Units { semaphore, count } => self.failed || self.units[semaphore] >= count,
            Wait::Finished(task) => self.finished[task],
            Wait::Baton => true,
        }
    }
}

impl Tasks {
    pub(super) fn new() -> Tasks {
        Tasks {
            state: Mutex::new(TaskState {
                finished: vec![false],
                ..TaskState::default()
            }),
            wake: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, TaskState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new semaphore instance holding `initial` units.
    pub(super) fn new_semaphore(&self, initial: i64) -> usize {
        let mut state = self.lock();
        state.units.push(initial);
        state.units.len() - 1
    }

    /// Takes `count` units of `semaphore` if it holds them.
    pub(super) fn try_acquire(&self, semaphore: usize, count: i64) -> bool {
        let mut state = self.lock();
        let available = state.units[semaphore] >= count;
        if available {
            state.units[semaphore] -= count;
        }
        available || state.failed
    }

    /// A task failed; returns whether it is the first to.
    pub(super) fn fail(&self) -> bool {
        let first = !std::mem::replace(&mut self.lock().failed, true);
        self.wake.notify_all();
        first
    }

    pub(super) fn release(&self, semaphore: usize, count: i64) {
        self.lock().units[semaphore] += count;
        self.wake.notify_all();
    }

    /// A new task, waiting for the baton to start.
    pub(super) fn new_task(&self) -> usize {
        let mut state = self.lock();
        state.finished.push(false);
        let task = state.finished.len() - 1;
        state.waiting.insert(task, Wait::Baton);
        task
    }

    /// Task `task` waits for `wait`, handing on the baton if it holds it, and returns with
    /// the baton (and, for units, the units taken). A semaphore wait fails where no task can
    /// go on; a wait for a task's end always returns, since a deadlock fails that task.
    pub(super) fn wait(&self, task: usize, baton: Option<Baton>, wait: Wait) -> Result<Baton> {
        let mut state = self.lock();
        if let Some(baton) = baton {
            state.parked = Some(baton);
        }
        state.waiting.insert(task, wait);
        self.wake.notify_all();
        loop {
            if state.ready(wait) && state.parked.is_some() {
                state.waiting.remove(&task);
                if let Wait::Units { semaphore, count } = wait {
                    if state.units[semaphore] >= count {
                        state.units[semaphore] -= count;
                    }
                }
                return Ok(state.parked.take().expect("checked above"));
            }
            if state.deadlocked && !matches!(wait, Wait::Finished(_)) {
                state.waiting.remove(&task);
                return Err(Error::Runtime(
                    "deadlock: the sides of a fork wait for semaphores no side will release".into(),
                ));
            }
            // Once deadlocked, a task waiting for another's end sleeps until that one has
            // seen the deadlock and ended: looping here would hold the lock it needs.
            let none_can_go_on = !state.deadlocked
                && state.parked.is_some()
                && !state.waiting.values().any(|w| state.ready(*w));
            if none_can_go_on {
                state.deadlocked = true;
                self.wake.notify_all();
                continue;
            }
            state = self.wake.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Task `task` has ended, handing on the baton if it holds it.
    pub(super) fn finish(&self, task: usize, baton: Option<Baton>) {
        let mut state = self.lock();
        if let Some(baton) = baton {
            state.parked = Some(baton);
        }
        state.waiting.remove(&task);
        state.finished[task] = true;
        self.wake.notify_all();
    }
}
