//! Async producers (`Func::async_`, `lower::async_producers`): the realization of an async
//! Func holds its semaphores and forks into the producer's side (its productions, each
//! followed by a release) and the consumer's (an acquire where each production was); a
//! folded one's fold loop acquires the rows the producer starts on and releases those the
//! consumer is done with. The folded case's lowered statement is checked here (its values
//! and every other case's are checked by the port of Halide's `async.cpp`), and that a side
//! failing while the other waits for it ends the run with its error instead of a hang.

use tessera::prelude::*;
use tessera::{LowerOptions, Pipeline};

/// The text of `s` from `start` on (it must occur).
fn from<'a>(s: &'a str, start: &str) -> &'a str {
    &s[s.find(start)
        .unwrap_or_else(|| panic!("no {start:?} in\n{s}"))..]
}

#[test]
fn a_folded_async_producer_forks_with_a_folding_semaphore() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (producer, consumer) = (Func::new("producer"), Func::new("consumer"));
    producer.define((x, y), x + y).unwrap();
    consumer
        .define(
            (x, y),
            producer.at((x - 1, y - 1)) + producer.at((x + 1, y + 1)),
        )
        .unwrap();
    consumer.compute_root();
    producer
        .store_root()
        .fold_storage(y, 8)
        .compute_at(&consumer, y)
        .async_();
    let lowered = Pipeline::new(&consumer)
        .lower(&LowerOptions::default())
        .unwrap();
    let stmt = lowered.stmt.to_string();
    println!("{stmt}");
    // The semaphores are declared inside the folded storage, the fold's holding its factor,
    // the productions' none.
    let realization = from(&stmt, "alloc producer[");
    let inside = from(realization, "semaphore producer.semaphore = 0");
    assert!(
        realization.contains("semaphore producer.folding_semaphore.1 = 8"),
        "{stmt}"
    );
    assert!(!realization.contains("relay"), "no wait to relay:\n{stmt}");
    let producer_side = from(inside, "fork {");
    let consumer_side = from(producer_side, "and {");
    let producer_side = &producer_side[..producer_side.len() - consumer_side.len()];
    // The producer's side: per row, the new rows acquired, the production, then its release.
    let acquire = producer_side
        .find("acquire producer.folding_semaphore.1(")
        .unwrap_or_else(|| panic!("no fold acquire on the producer's side:\n{stmt}"));
    let produce = producer_side
        .find("produce producer")
        .expect("the production");
    let release = producer_side
        .find("release producer.semaphore(1)")
        .expect("the production's release");
    assert!(acquire < produce && produce < release, "{stmt}");
    assert!(!producer_side.contains("consume producer"), "{stmt}");
    assert!(
        !producer_side.contains("release producer.folding_semaphore"),
        "{stmt}"
    );
    // The consumer's side: per row, the production acquired, the consumption, then the rows
    // it is done with released.
    let acquire = consumer_side
        .find("acquire producer.semaphore(1)")
        .unwrap_or_else(|| panic!("no production acquire on the consumer's side:\n{stmt}"));
    let consume = consumer_side
        .find("consume producer")
        .expect("the consumption");
    let release = consumer_side
        .find("release producer.folding_semaphore.1(")
        .expect("the fold release");
    assert!(acquire < consume && consume < release, "{stmt}");
    assert!(!consumer_side.contains("produce producer"), "{stmt}");
}

#[test]
fn a_failing_producer_ends_the_run_with_its_error_while_the_consumer_waits() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (producer, consumer) = (Func::new("producer"), Func::new("consumer"));
    producer
        .define(
            (x, y),
            require(
                y.lt(10),
                x + y,
                &["row too far".into(), Expr::from(y).into()],
            ),
        )
        .unwrap();
    consumer
        .define((x, y), producer.at((x, y - 1)) + producer.at((x, y + 1)))
        .unwrap();
    consumer.compute_root();
    producer
        .store_root()
        .fold_storage(y, 4)
        .compute_at(&consumer, y)
        .async_();
    let pipeline = Pipeline::new(&consumer);
    let interpreted = pipeline.realize_interp(&Inputs::new(), &[0, 0], &[8, 16]);
    let message = interpreted.map(drop).expect_err("row 10 fails").to_string();
    assert!(message.contains("row too far 10"), "{message}");
    let mut compiled = pipeline.compile_jit(&Target::host()).unwrap();
    for threads in [1, 2] {
        compiled.set_threads(threads).unwrap();
        let message = compiled
            .realize_as::<i32>(&Inputs::new(), &[0, 0], &[8, 16])
            .map(drop)
            .expect_err("row 10 fails")
            .to_string();
        assert!(
            message.contains("row too far 10"),
            "{threads} threads: {message}"
        );
    }
}
