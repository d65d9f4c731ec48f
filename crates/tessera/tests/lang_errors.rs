//! Every user mistake is an `Err` (never a panic) whose message names the Func involved:
//! mistakes in definitions, detected by the language front end, and mistakes in running a
//! pipeline, detected by the evaluator.

use tessera::lang::operators::Operand;
use tessera::prelude::*;

/// Asserts that `result` failed with a message mentioning every one of `words`.
#[track_caller]
fn assert_error<T: std::fmt::Debug>(result: Result<T>, words: &[&str]) -> Error {
    let err = result.expect_err("expected an error");
    let msg = err.to_string();
    for w in words {
        assert!(msg.contains(w), "message {msg:?} does not mention {w:?}");
    }
    err
}

// ---- definitions ----------------------------------------------------------------------------

#[test]
fn calling_an_undefined_func() {
    let x = Var::new("x");
    let (later, f) = (Func::new("later"), Func::new("user_of_later"));
    assert_error(f.define(x, later.at(x) + 1), &["later", "user_of_later"]);
}

#[test]
fn calling_with_the_wrong_number_of_arguments() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("two_d");
    g.define((x, y), x + y).unwrap();
    let f = Func::new("calls_two_d");
    assert_error(
        f.define(x, g.at(x)),
        &["two_d", "calls_two_d", "2 dimensions"],
    );
    let img = ImageParam::new(Type::u8(), 2, "picture");
    let h = Func::new("reads_picture");
    assert_error(
        h.define(x, img.at((x, x, x))),
        &["picture", "reads_picture"],
    );
}

#[test]
fn defining_a_func_twice() {
    let x = Var::new("x");
    let f = Func::new("twice");
    f.define(x, x).unwrap();
    assert_error(f.define(x, x + 1), &["twice", "already"]);
}

#[test]
fn a_var_twice_on_the_left_hand_side() {
    let x = Var::new("x");
    let f = Func::new("diagonal");
    assert_error(f.define((x, x), x), &["diagonal", "x"]);
}

#[test]
fn an_update_changing_the_dimensions() {
    let x = Var::new("x");
    let f = Func::new("one_d");
    f.define(x, x).unwrap();
    assert_error(f.update((x, 0), 1), &["one_d", "dimensions"]);
}

#[test]
fn an_update_before_the_pure_definition() {
    let x = Var::new("x");
    let f = Func::new("not_yet");
    assert_error(f.update(x, 1), &["not_yet", "pure definition"]);
}

#[test]
fn an_update_with_the_wrong_number_of_values() {
    let x = Var::new("x");
    let f = Func::new("pairs");
    f.define(x, Tuple(vec![x.into(), x * 2])).unwrap();
    assert_error(f.update(x, x), &["pairs", "values"]);
}

#[test]
fn rdom_bounds_depending_on_a_pure_var() {
    let x = Var::new("x");
    let r = RDom::new([(Expr::from(0), x.expr())]);
    let f = Func::new("var_bounds");
    f.define(x, 0).unwrap();
    assert_error(f.update(x, f.at(x) + r.x()), &["var_bounds", "x"]);
}

#[test]
fn rdom_bounds_using_a_pure_var_in_a_let_value() {
    // A Let binds its own name only in its body: its value may still use a free Var.
    let (x, y) = (Var::new("x"), Var::new("y"));
    let extent = Expr::let_in(y.name(), x + 1, y * 2);
    let r = RDom::new([(Expr::from(0), extent)]);
    let f = Func::new("let_bounds");
    f.define(x, 0).unwrap();
    assert_error(f.update(x, f.at(x) + r.x()), &["let_bounds", "variable x"]);
}

#[test]
fn rvars_of_two_rdoms_in_one_update() {
    let x = Var::new("x");
    let (r1, r2) = (RDom::new([(0, 3)]), RDom::new([(0, 4)]));
    let f = Func::new("two_rdoms");
    f.define(x, 0).unwrap();
    assert_error(
        f.update(x, f.at(x) + r1.x() * r2.x()),
        &["two_rdoms", "two different RDoms"],
    );
}

#[test]
fn an_rvar_in_a_pure_definition() {
    let x = Var::new("x");
    let r = RDom::new([(0, 3)]);
    let f = Func::new("pure_with_rvar");
    assert_error(f.define(x, x + r.x()), &["pure_with_rvar", "update"]);
}

#[test]
fn a_pure_var_in_the_wrong_position() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("transposed");
    f.define((x, y), x + y).unwrap();
    assert_error(
        f.update((y, x), f.at((y, x)) + 1),
        &["transposed", "position"],
    );
}

#[test]
fn a_pure_var_inside_an_update_coordinate() {
    let x = Var::new("x");
    let f = Func::new("shifted_update");
    f.define(x, x).unwrap();
    assert_error(f.update(x + 1, 5), &["shifted_update", "alone"]);
    // Inside another coordinate a pure Var is fine only if it also stands alone in its own
    // position: here y does not.
    let y = Var::new("y");
    let g = Func::new("bin_uses_y");
    g.define((x, y), 0).unwrap();
    assert_error(g.update((x, x + y), 1), &["bin_uses_y", "y", "alone"]);
    g.update((x, x + 1), 1)
        .expect("x stands alone in its own position");
}

#[test]
fn a_right_hand_side_var_missing_from_the_left_hand_side() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("free_var");
    assert_error(f.define(x, x + y), &["free_var", "y"]);
    let g = Func::new("free_var_update");
    g.define((x, y), x).unwrap();
    assert_error(
        g.update((x, 0), g.at((x, 0)) + y),
        &["free_var_update", "y"],
    );
}

#[test]
fn a_self_call_at_a_different_pure_coordinate() {
    let x = Var::new("x");
    let f = Func::new("peeks_ahead");
    f.define(x, x).unwrap();
    assert_error(
        f.update(x, f.at(x + 1)),
        &["peeks_ahead", "same pure coordinates"],
    );
}

#[test]
fn a_type_mismatch_in_an_update() {
    let x = Var::new("x");
    let f = Func::new("typed");
    f.define(x, cast_to::<u8>(x)).unwrap();
    let err = assert_error(f.update(x, cast_to::<f32>(x)), &["typed", "f32", "u8"]);
    assert!(matches!(err, Error::Type(_)));
}

#[test]
fn an_integer_literal_out_of_range() {
    let x = Var::new("x");
    let img = ImageParam::new(Type::u8(), 1, "bytes");
    let f = Func::new("too_big");
    assert_error(f.define(x, img.at(x) + 300), &["too_big", "300", "u8"]);
    let g = Func::new("negative_unsigned");
    assert_error(g.define(x, img.at(x) * -1), &["negative_unsigned", "-1"]);
}

#[test]
fn arithmetic_and_negation_on_bools() {
    let x = Var::new("x");
    let f = Func::new("bool_sum");
    assert_error(f.define(x, x.gt(0) + x.lt(5)), &["bool_sum", "bool"]);
    let g = Func::new("bool_neg");
    assert_error(g.define(x, -x.gt(0)), &["bool_neg", "bool"]);
}

#[test]
fn a_float_coordinate() {
    let x = Var::new("x");
    let g = Func::new("sampled");
    g.define(x, x).unwrap();
    let f = Func::new("float_index");
    assert_error(
        f.define(x, g.at(cast_to::<f32>(x) * 0.5f32)),
        &["float_index", "sampled", "f32"],
    );
}

#[test]
fn bitwise_operations_on_floats() {
    let x = Var::new("x");
    let f = Func::new("float_bits");
    let v = cast_to::<f32>(x);
    assert_error(f.define(x, &v & &v), &["float_bits", "f32"]);
    let g = Func::new("float_shift");
    assert_error(g.define(x, &v << 1), &["float_shift", "f32"]);
}

#[test]
fn mismatched_select_arms_and_conditions() {
    let x = Var::new("x");
    let f = Func::new("select_bool_int");
    assert_error(
        f.define(x, select(x.gt(0), x.lt(3), x)),
        &["select_bool_int", "bool"],
    );
    let g = Func::new("select_int_condition");
    assert_error(
        g.define(x, select(x, 1, 2)),
        &["select_int_condition", "condition"],
    );
}

#[test]
fn mux_mistakes() {
    let (x, c) = (Var::new("x"), Var::new("c"));
    let f = Func::new("mux_by_float");
    assert_error(
        f.define(x, mux(cast_to::<f32>(x), [x, c])),
        &["mux_by_float", "index of mux", "f32"],
    );
    let g = Func::new("mux_of_nothing");
    assert_error(
        g.define(x, mux(x, Vec::<Expr>::new())),
        &["mux_of_nothing", "at least one value"],
    );
    let h = Func::new("mux_too_big_literal");
    let byte = cast_to::<u8>(x);
    assert_error(
        h.define(x, mux(x, [Operand::Expr(byte), Operand::Int(300)])),
        &["mux_too_big_literal", "300", "u8"],
    );
    let k = Func::new("mux_of_ragged_tuples");
    let tuples = vec![vec![x.expr(), x.expr()], vec![x.expr()]];
    assert_error(
        k.define(x, Tuple(mux_tuples(c, tuples))),
        &[
            "mux_of_ragged_tuples",
            "Tuple 1 has 1 elements",
            "Tuple 0 has 2",
        ],
    );
}

#[test]
fn lerp_weights_that_are_not_floats_or_unsigned() {
    let x = Var::new("x");
    let f = Func::new("lerp_signed_weight");
    let byte = cast_to::<u8>(x);
    assert_error(
        f.define(x, lerp(&byte, &byte, cast_to::<i8>(x))),
        &["lerp_signed_weight", "weight of lerp", "i8"],
    );
    let g = Func::new("lerp_bool_weight");
    assert_error(
        g.define(x, lerp(&byte, &byte, x.gt(0))),
        &["lerp_bool_weight", "weight of lerp", "bool"],
    );
}

#[test]
fn inline_reduction_mistakes() {
    let x = Var::new("x");
    let f = Func::new("sum_without_rdom");
    assert_error(
        f.define(x, sum(x + 1)),
        &["sum_without_rdom", "sum", "reduction variable"],
    );
    let (r1, r2) = (RDom::new([(0, 2)]), RDom::new([(0, 2)]));
    let g = Func::new("max_of_two_rdoms");
    assert_error(
        g.define(x, maximum(r1.x() + r2.x())),
        &["max_of_two_rdoms", "maximum", "two different RDoms"],
    );
    let h = Func::new("argmin_of_nothing");
    let am = argmin(Expr::from(3));
    assert_error(h.define(x, am[0].clone()), &["argmin_of_nothing", "argmin"]);
    let k = Func::new("product_of_bools");
    let r = RDom::new([(0, 2)]);
    assert_error(
        k.define(x, product(r.x().gt(x))),
        &["product_of_bools", "bool"],
    );
}

// ---- evaluation -----------------------------------------------------------------------------

#[test]
fn an_input_that_is_not_bound() {
    let x = Var::new("x");
    let img = ImageParam::new(Type::f32(), 1, "unbound_image");
    let f = Func::new("needs_unbound_image");
    f.define(x, img.at(x) * 2.0f32).unwrap();
    let err = assert_error(
        Evaluator::new().realize(&f, &[0], &[4]),
        &["unbound_image", "needs_unbound_image", "with_input"],
    );
    assert!(matches!(err, Error::Runtime(_)));
}

#[test]
fn reading_outside_the_input_buffer() {
    let x = Var::new("x");
    let img = ImageParam::new(Type::u16(), 2, "small_image");
    let f = Func::new("reads_too_far");
    f.define((x, Var::new("y")), img.at((x + 1, Var::new("y"))))
        .unwrap();
    let buf = Buffer::<u16>::with_mins(&[-2, 5], &[4, 3]);
    let mut ev = Evaluator::new().with_input(&img, buf);
    // x in [-3, 1] reads x + 1 in [-2, 2]; 2 is outside [-2, 1].
    assert_error(
        ev.realize(&f, &[-3, 5], &[5, 3]),
        &["small_image", "reads_too_far", "[2, 5]", "[-2, 1] x [5, 7]"],
    );
    assert!(ev.realize(&f, &[-3, 5], &[4, 3]).is_ok());
}

#[test]
fn an_image_of_the_wrong_type_or_dimensionality() {
    let x = Var::new("x");
    let img = ImageParam::new(Type::u8(), 1, "typed_image");
    let f = Func::new("reads_typed_image");
    f.define(x, img.at(x)).unwrap();
    assert_error(
        Evaluator::new()
            .with_input(&img, Buffer::<i8>::new(&[4]))
            .realize(&f, &[0], &[4]),
        &["typed_image", "u8", "i8"],
    );
    assert_error(
        Evaluator::new()
            .with_input(&img, Buffer::<u8>::new(&[4, 4]))
            .realize(&f, &[0], &[4]),
        &["typed_image", "2 dimensions"],
    );
}

#[test]
fn a_param_that_is_not_bound_or_bound_with_another_type() {
    let x = Var::new("x");
    let gain = Param::<f32>::new("gain");
    let f = Func::new("gained");
    f.define(x, cast_to::<f32>(x) * gain.expr()).unwrap();
    assert_error(
        Evaluator::new().realize(&f, &[0], &[4]),
        &["gain", "gained", "with_param"],
    );
    let same_name = Param::<f64>::new("gain");
    assert_error(
        Evaluator::new()
            .with_param(same_name.bind(2.0))
            .realize(&f, &[0], &[4]),
        &["gain", "gained", "f32", "f64"],
    );
}

#[test]
fn realizing_with_the_wrong_box() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("boxed");
    f.define((x, y), x + y).unwrap();
    let mut ev = Evaluator::new();
    assert_error(ev.realize(&f, &[0], &[4]), &["boxed", "2 dimensions"]);
    assert_error(ev.realize(&f, &[0, 0], &[4]), &["boxed"]);
    assert_error(ev.realize(&f, &[0, 0], &[4, -1]), &["boxed", "negative"]);
    assert_error(ev.value_at(&f, &[1, 2, 3]), &["boxed", "3 coordinates"]);
    assert_error(
        ev.realize(&f, &[i32::MAX as i64, 0], &[2, 1]),
        &["boxed", "int32"],
    );
}

#[test]
fn realizing_an_undefined_func_or_with_the_wrong_type() {
    let x = Var::new("x");
    let empty = Func::new("empty_func");
    assert_error(
        Evaluator::new().realize(&empty, &[0], &[1]),
        &["empty_func"],
    );
    let f = Func::new("int_valued");
    f.define(x, x).unwrap();
    assert_error(
        Evaluator::new().realize_as::<f32>(&f, &[0], &[1]),
        &["int_valued", "i32", "f32"],
    );
    let t = Func::new("tuple_valued");
    t.define(x, Tuple(vec![x.into(), x.into()])).unwrap();
    assert_error(
        Evaluator::new().realize_as::<i32>(&t, &[0], &[1]),
        &["tuple_valued", "i32, i32"],
    );
}

/// Two Funcs given one name are two Funcs: the later one is renamed, not merged.
#[test]
fn two_funcs_with_one_name() {
    let x = Var::new("x");
    let (a, b) = (Func::new("dup"), Func::new("dup"));
    a.define(x, x).unwrap();
    b.define(x, x * 2).unwrap();
    let f = Func::new("uses_both_dups");
    f.define(x, a.at(x) + b.at(x)).unwrap();
    let out = Evaluator::new().realize_as::<i32>(&f, &[0], &[2]).unwrap();
    assert_eq!((out.get(&[0]), out.get(&[1])), (0, 3));
    assert_eq!((a.name().as_str(), b.name().as_str()), ("dup", "dup2"));
}

#[test]
fn a_cycle_through_an_update() {
    let x = Var::new("x");
    let f = Func::new("cyclic_f");
    f.define(x, x).unwrap();
    let g = Func::new("cyclic_g");
    g.define(x, f.at(x) + 1).unwrap();
    f.update(x, g.at(x)).unwrap();
    assert_error(
        Evaluator::new().realize(&f, &[0], &[3]),
        &["cyclic_f", "cyclic"],
    );
}

#[test]
fn reduction_bounds_reading_their_own_func() {
    let x = Var::new("x");
    let f = Func::new("self_bounded");
    f.define(x, 3).unwrap();
    let r = RDom::new([(Expr::from(0), f.at(0))]);
    f.update(x, f.at(x) + r.x()).unwrap();
    assert_error(
        Evaluator::new().realize(&f, &[0], &[2]),
        &["self_bounded", "cyclic"],
    );
}

// ---- implicit arguments ---------------------------------------------------------------------

#[test]
fn implicit_vars_without_a_placeholder_on_the_left_hand_side() {
    let (x, y, all) = (Var::new("x"), Var::new("y"), Var::placeholder());
    let g = Func::new("plane");
    g.define((x, y), x + y).unwrap();
    let f = Func::new("no_placeholder");
    assert_error(
        f.define(x, g.at((x, all))),
        &["no_placeholder", "_0", "placeholder"],
    );
}

#[test]
fn a_placeholder_twice_or_inside_a_coordinate() {
    let (x, y, all) = (Var::new("x"), Var::new("y"), Var::placeholder());
    let g = Func::new("grid");
    g.define((x, y), x + y).unwrap();
    let f = Func::new("two_placeholders");
    assert_error(
        f.define(all, g.at((all, all))),
        &["two_placeholders", "grid", "twice"],
    );
    let h = Func::new("shifted_placeholder");
    assert_error(
        h.define(all, g.at((x, all + 1))),
        &["shifted_placeholder", "grid", "alone"],
    );
    let k = Func::new("placeholder_lhs_twice");
    assert_error(k.define((all, all), 1), &["placeholder_lhs_twice", "twice"]);
    let v = Func::new("placeholder_value");
    assert_error(
        v.define(all, all + 1),
        &["placeholder_value", "only for arguments"],
    );
}

#[test]
fn a_placeholder_with_more_coordinates_than_dimensions() {
    let (x, y, all) = (Var::new("x"), Var::new("y"), Var::placeholder());
    let g = Func::new("narrow");
    g.define(x, x).unwrap();
    let f = Func::new("too_wide_call");
    assert_error(
        f.define((x, y, all), g.at((x, y, all))),
        &["too_wide_call", "narrow", "1 dimensions"],
    );
    let img = ImageParam::new(Type::u8(), 1, "line");
    assert_error(
        f.define((x, y, all), img.at((x, y, all))),
        &["too_wide_call", "line"],
    );
}

#[test]
fn an_update_using_more_implicit_vars_than_its_placeholder_stands_for() {
    let (x, y, z, all) = (
        Var::new("x"),
        Var::new("y"),
        Var::new("z"),
        Var::placeholder(),
    );
    let g = Func::new("volume");
    g.define((x, y, z), x + y + z).unwrap();
    let f = Func::new("updated_volume");
    f.define((x, y, z), 0).unwrap();
    // `_` on the left stands for z only; `g(_)` uses three implicit Vars.
    assert_error(
        f.update((x, y, all), g.at(all)),
        &["updated_volume", "3 implicit Vars", "only 1"],
    );
    assert_error(
        f.update((x, y, z), g.at((x, all))),
        &["updated_volume", "_0", "placeholder"],
    );
}

// ---- undef ----------------------------------------------------------------------------------

#[test]
fn a_coordinate_undef_everywhere() {
    // Undef spreads outwards (`undef + 1` is undef, a definition of it stores nothing), but
    // a coordinate that is undef wherever it is evaluated says nothing about where to store.
    let x = Var::new("x");
    let h = Func::new("undef_coordinate");
    h.define(x, x).unwrap();
    assert_error(
        h.update(undef::<i32>() + 1, 3),
        &["undef_coordinate", "coordinate 0", "undef"],
    );
}

#[test]
fn tuple_elements_undef_under_different_conditions() {
    let x = Var::new("x");
    let f = Func::new("two_guards");
    assert_error(
        f.define(
            x,
            Tuple(vec![
                select(x.lt(3), x, undef::<i32>()),
                select(x.lt(4), x, undef::<i32>()),
            ]),
        ),
        &["two_guards", "different conditions"],
    );
}

#[test]
fn reading_a_point_an_undef_definition_never_stored() {
    let x = Var::new("x");
    let f = Func::new("evens_only");
    f.define(x, select((x % 2).eq_(0), x, undef::<i32>()))
        .unwrap();
    assert_error(
        Evaluator::new().realize(&f, &[0], &[4]),
        &["evens_only", "[1]", "undef"],
    );
    // Realized into a buffer holding values, the odd points keep them.
    let mut out = vec![AnyBuffer::from(Buffer::<i32>::from_fn(&[0], &[4], |_| -1))];
    Evaluator::new().realize_into(&f, &mut out).unwrap();
    let AnyBuffer::I32(out) = &out[0] else {
        panic!("i32")
    };
    assert_eq!(
        (0..4).map(|i| out.get(&[i])).collect::<Vec<_>>(),
        [0, -1, 2, -1]
    );
}

// ---- 16-bit floats ---------------------------------------------------------------------------

#[test]
fn realizing_an_f16_func_as_another_float_type() {
    let x = Var::new("x");
    let half_ramp = Func::new("half_ramp");
    half_ramp.define(x, cast_to::<f16>(x) / 2).unwrap();
    assert_error(half_ramp.realize::<f32>(&[4]), &["half_ramp", "f16", "f32"]);
    let values = half_ramp.realize::<f16>(&[4]).unwrap();
    assert_eq!(values.get(&[3]), f16::from_f32(1.5));
}

#[test]
fn an_f16_input_given_a_buffer_of_f32() {
    let frame = ImageParam::new(Type::f16(), 1, "frame");
    let x = Var::new("x");
    let doubled = Func::new("doubled");
    doubled.define(x, frame.at(x) * 2.0f32).unwrap();
    let compiled = Pipeline::new(&doubled)
        .compile_jit(&Target::host())
        .unwrap();
    let inputs = Inputs::new().image(&frame, Buffer::<f32>::new(&[4]));
    assert_error(
        compiled.realize(&inputs, &[0], &[4]),
        &["frame", "f16", "f32"],
    );
}

#[test]
fn an_f32_only_approximation_of_an_f16() {
    let x = Var::new("x");
    let wave = Func::new("wave");
    assert_error(
        wave.define(x, fast_sin(cast_to::<f16>(x))),
        &["wave", "fast_sin", "f16"],
    );
}
