use tessera::lower::{lower, LowerOptions};
use tessera::prelude::*;
fn main() {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y, xi, yi) = (Var::new("x"), Var::new("y"), Var::new("xi"), Var::new("yi"));
    let blur_x = Func::new("blur_x");
    let blur_y = Func::new("blur_y");
    blur_x
        .define(
            (x, y),
            (input.at((x, y)) + input.at((x + 1, y)) + input.at((x + 2, y))) / 3,
        )
        .unwrap();
    blur_y
        .define(
            (x, y),
            (blur_x.at((x, y)) + blur_x.at((x, y + 1)) + blur_x.at((x, y + 2))) / 3,
        )
        .unwrap();
    blur_y
        .tile(x, y, Var::new("xo"), Var::new("yo"), xi, yi, 64, 32)
        .vectorize(xi, 8)
        .parallel(Var::new("yo"));
    blur_x.compute_at(&blur_y, Var::new("xo")).vectorize(x, 8);
    let l = lower(&blur_y, &LowerOptions::default()).unwrap();
    println!("{}", l.stmt);
    blur_x.store_root().compute_at(&blur_y, Var::new("yi"));
    match lower(&blur_y, &LowerOptions::default()) {
        Ok(l) => println!("{}", l.stmt),
        Err(e) => println!("ERR {e}"),
    }
}
