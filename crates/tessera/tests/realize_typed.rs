//! Typed realization: `Compiled::realize_as::<T>` and `Func::realize::<T>` give the output as a
//! `Buffer<T>` equal to a plain Rust loop's, and a `T` that is not the Func's value type (or
//! a pipeline with inputs given to `Func::realize`) is an error naming the Func and the types.

use tessera::prelude::*;

fn assert_error<T: std::fmt::Debug>(result: Result<T>, words: &[&str]) {
    let message = result.expect_err("expected an error").to_string();
    for w in words {
        assert!(message.contains(w), "{message:?} does not mention {w:?}");
    }
}

#[test]
fn func_realize_computes_a_scheduled_pipeline_without_inputs() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let gradient = Func::new("typed_gradient");
    gradient.define((x, y), x * 3 - y * y).unwrap();
    gradient
        .split(y, "yo", "yi", 8)
        .parallel("yo")
        .vectorize(x, 8);
    let out = gradient.realize::<i32>(&[37, 21]).unwrap();
    assert_eq!((out.mins(), out.extents()), (vec![0, 0], vec![37, 21]));
    for yy in 0..21 {
        for xx in 0..37 {
            assert_eq!(
                out.get(&[xx, yy]),
                (xx * 3 - yy * yy) as i32,
                "at ({xx}, {yy})"
            );
        }
    }
}

#[test]
fn compiled_realize_as_gives_the_output_type_over_the_box() {
    let input = ImageParam::new(Type::u16(), 2, "typed_blur_input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let blur = Func::new("typed_blur");
    blur.define(
        (x, y),
        (input.at((x, y)) + input.at((x + 1, y)) + input.at((x, y + 1))) / 3,
    )
    .unwrap();
    blur.vectorize(x, 16);
    let image = Buffer::<u16>::from_fn(&[0, 0], &[70, 31], |c| (c[0] * 97 + c[1] * 13) as u16);
    let compiled = Pipeline::new(&blur).compile_jit(&Target::host()).unwrap();
    let inputs = Inputs::new().image(&input, image.clone());
    let out = compiled
        .realize_as::<u16>(&inputs, &[2, 5], &[64, 25])
        .unwrap();
    assert_eq!((out.mins(), out.extents()), (vec![2, 5], vec![64, 25]));
    for yy in 5..30 {
        for xx in 2..66 {
            let at = |dx: i64, dy: i64| u32::from(image.get(&[xx + dx, yy + dy]));
            let expected = (at(0, 0) + at(1, 0) + at(0, 1)) / 3;
            assert_eq!(u32::from(out.get(&[xx, yy])), expected, "at ({xx}, {yy})");
        }
    }
}

#[test]
fn realizing_as_another_type_names_the_func_and_both_types() {
    let x = Var::new("x");
    let ints = Func::new("typed_ints");
    ints.define(x, x + 1).unwrap();
    assert_error(ints.realize::<f32>(&[4]), &["typed_ints", "i32", "f32"]);
    let compiled = Pipeline::new(&ints).compile_jit(&Target::host()).unwrap();
    assert_error(
        compiled.realize_as::<u8>(&Inputs::new(), &[0], &[4]),
        &["typed_ints", "i32", "u8"],
    );
    // The right type works with the same compiled code.
    let out = compiled
        .realize_as::<i32>(&Inputs::new(), &[0], &[4])
        .unwrap();
    assert_eq!(out.data(), &[1, 2, 3, 4]);

    let pair = Func::new("typed_pair");
    pair.define(x, Tuple(vec![x.into(), x * 2])).unwrap();
    assert_error(pair.realize::<i32>(&[4]), &["typed_pair", "i32, i32"]);

    let image: AnyBuffer = Buffer::<u16>::new(&[2]).into();
    assert_error(image.into_typed::<f32>(), &["f32", "u16"]);
}

#[test]
fn func_realize_refuses_pipelines_with_inputs_and_undefined_funcs() {
    let x = Var::new("x");
    let input = ImageParam::new(Type::f32(), 1, "typed_unbound_input");
    let scaled = Func::new("typed_scaled");
    scaled.define(x, input.at(x) * 2.0f32).unwrap();
    assert_error(
        scaled.realize::<f32>(&[4]),
        &["typed_scaled", "image typed_unbound_input", "Inputs"],
    );
    let gain = Param::<i32>::new("typed_gain");
    let gained = Func::new("typed_gained");
    gained.define(x, x * gain.expr()).unwrap();
    assert_error(
        gained.realize::<i32>(&[4]),
        &["typed_gained", "parameter typed_gain"],
    );
    let undefined = Func::new("typed_undefined");
    assert_error(undefined.realize::<i32>(&[4]), &["typed_undefined"]);
}
