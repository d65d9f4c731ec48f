//! The error type of every fallible public operation. Messages name the Func, Var, buffer or
//! parameter involved and say what to do about it.

use thiserror::Error;

/// What went wrong, by kind; the message names the Func, Var, buffer or parameter involved.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A Func definition or update is malformed (undefined Func, wrong arity, bad RDom, ...).
    #[error("{0}")]
    Definition(String),
    /// Expressions of incompatible types were combined.
    #[error("type error: {0}")]
    Type(String),
    /// A schedule directive is invalid for the pipeline.
    #[error("schedule error: {0}")]
    Schedule(ScheduleError),
    /// An input or output buffer does not fit what the pipeline needs.
    #[error("buffer error: {0}")]
    Buffer(String),
    /// A pipeline failed while running (an assertion in generated code, a missing input).
    #[error("runtime error: {0}")]
    Runtime(String),
    /// The native backend could not compile a statement (a construct it does not support, or
    /// an LLVM failure).
    #[error("code generation error: {0}")]
    Codegen(String),
    /// Reading or writing a file failed.
    #[error("I/O error: {0}")]
    Io(String),
    /// A compiler bug caught by a check of the compiler's own work (`lower::verify`: a
    /// lowering pass made an ill-formed statement).
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// A schedule error that is not about one directive of one Func (a schedule script that
    /// does not parse, an app's unknown schedule, a pipeline-wide constraint).
    pub fn schedule(message: impl Into<String>) -> Error {
        Error::Schedule(ScheduleError {
            func: None,
            directive: None,
            message: message.into(),
        })
    }

    /// The same error with `what` (the buffer, file or flag it concerns) in front of its
    /// message.
    pub fn context(self, what: impl std::fmt::Display) -> Error {
        let prefix = |message: String| format!("{what}: {message}");
        match self {
            Error::Definition(m) => Error::Definition(prefix(m)),
            Error::Type(m) => Error::Type(prefix(m)),
            Error::Schedule(e) => Error::Schedule(ScheduleError {
                message: prefix(e.message),
                ..e
            }),
            Error::Buffer(m) => Error::Buffer(prefix(m)),
            Error::Runtime(m) => Error::Runtime(prefix(m)),
            Error::Codegen(m) => Error::Codegen(prefix(m)),
            Error::Io(m) => Error::Io(prefix(m)),
            Error::Internal(m) => Error::Internal(prefix(m)),
        }
    }
}

/// What is wrong with a schedule: the Func and the directive at fault, for callers to match
/// on, and the message, which is what it displays as (naming the stage, the call as written,
/// and the legal choices).
#[derive(Error, Debug, Clone, PartialEq, Eq)]
#[error("{message}")]
pub struct ScheduleError {
    /// The Func whose schedule has the mistake, when one directive of one Func does.
    pub func: Option<String>,
    /// That directive's name as the user calls it (`split`, `compute_with`, `bound`).
    pub directive: Option<String>,
    /// What went wrong, as displayed.
    pub message: String,
}

impl ScheduleError {
    /// The error of directive `call` of Func `func`; `call` is the directive's name, or the
    /// call as written (`split(x, xo, xi, 8)`), whose name is taken.
    pub fn of_directive(func: impl std::fmt::Display, call: &str, message: String) -> Self {
        let name = call.split('(').next().unwrap_or(call).trim();
        ScheduleError {
            func: Some(func.to_string()),
            directive: Some(name.to_string()),
            message,
        }
    }
}

/// A result whose error is Tessera's [`Error`](enum@Error).
pub type Result<T, E = Error> = std::result::Result<T, E>;
