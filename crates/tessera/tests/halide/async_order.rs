//! Halide's `test/correctness/async_order.cpp`: an async producer that reads another
//! producer, sync or async, computed at the same loop or stored at root, must wait for it.
//! Values checked with plain Rust on the interpreter and on the JIT at 1 and 2 threads.

use crate::r#async::check_everywhere;
use tessera::prelude::*;

/// `consumer(x, y) = producer1(x, y - 1) + producer2(x, y + 1)` with
/// `producer2 = producer1 = x + y`, over a consumer bound to 16 x 16.
fn pipeline() -> (Func, Func, Func, Var) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (producer1, producer2, consumer) = (
        Func::new("producer1"),
        Func::new("producer2"),
        Func::new("consumer"),
    );
    producer1.define((x, y), x + y).unwrap();
    producer2.define((x, y), producer1.at((x, y))).unwrap();
    consumer
        .define((x, y), producer1.at((x, y - 1)) + producer2.at((x, y + 1)))
        .unwrap();
    consumer.compute_root().bound(x, 0, 16).bound(y, 0, 16);
    (producer1, producer2, consumer, y)
}

#[test]
fn async_producer_beside_a_sync_one_at_the_same_loop() {
    let (producer1, producer2, consumer, y) = pipeline();
    producer1.compute_at(&consumer, y);
    producer2.compute_at(&consumer, y).async_();
    check_everywhere(&consumer, &[16, 16], |p| 2 * (p[0] + p[1]));
}

#[test]
fn async_producer_stored_at_root_reading_a_root_producer() {
    let (producer1, producer2, consumer, y) = pipeline();
    producer1.compute_root();
    producer2.store_root().compute_at(&consumer, y).async_();
    check_everywhere(&consumer, &[16, 16], |p| 2 * (p[0] + p[1]));
}

#[test]
fn async_producer_reading_another_async_producer() {
    let (producer1, producer2, consumer, y) = pipeline();
    producer1.store_root().compute_at(&consumer, y).async_();
    producer2.store_root().compute_at(&consumer, y).async_();
    check_everywhere(&consumer, &[16, 16], |p| 2 * (p[0] + p[1]));
}
