//! Wrapping of over-long printed lines (a lowered pipeline's bounds expressions can run to
//! thousands of columns): a line longer than the limit is cut at a `, ` or before a spaced
//! binary operator (` + `, ` && `, ...), and goes on in continuation lines indented four
//! spaces deeper than the line began. Inside a quoted string (an assertion's message) the cut
//! falls at a space, and the string is closed and reopened C-style (`"... " \n "..."`), so the
//! pieces concatenate to the original text. A cut prefers the shallowest bracket nesting in
//! the last half of the room the line has, so operands stay whole where they can. A run of
//! more than a line's worth of characters with no such cut point (never seen in practice) is
//! cut where the room ends.

use std::cmp::Reverse;

/// The longest line, in characters, the printer emits.
pub const MAX_LINE_COLUMNS: usize = 300;

/// How much deeper than their line continuation lines are indented.
const CONTINUATION_INDENT: usize = 4;

/// The binary operators the printer surrounds with spaces: a line may be cut before one.
const SPACED_OPERATORS: [&str; 15] = [
    "+", "-", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "&", "|", "^", "<<", ">>",
];

/// `text` with every line longer than `width` characters wrapped.
pub fn wrap_long_lines(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let content = line.strip_suffix('\n').unwrap_or(line);
        if content.chars().count() <= width {
            out.push_str(line);
        } else {
            wrap_line(&mut out, content, width);
            out.push('\n');
        }
    }
    out
}

/// A place a line may be cut: it ends before `end`, and goes on at `resume`.
#[derive(Clone, Copy)]
struct Cut {
    end: usize,
    resume: usize,
    /// Bracket nesting at the cut (a cut inside a string counts one deeper).
    depth: usize,
    inside_string: bool,
}

/// The cut points of `chars`, in order, and for every character whether it is inside a
/// quoted string.
fn find_cuts(chars: &[char]) -> (Vec<Cut>, Vec<bool>) {
    let (mut cuts, mut inside) = (Vec::new(), Vec::with_capacity(chars.len()));
    let (mut depth, mut in_string, mut string_braces) = (0usize, false, 0usize);
    for (i, &c) in chars.iter().enumerate() {
        let escaped = i > 0 && chars[i - 1] == '\\';
        inside.push(in_string && c != '"');
        match c {
            '"' if !escaped => {
                in_string = !in_string;
                string_braces = 0;
            }
            '{' if in_string => string_braces += 1,
            '}' if in_string => string_braces = string_braces.saturating_sub(1),
            ' ' if in_string && string_braces == 0 => cuts.push(Cut {
                end: i + 1,
                resume: i + 1,
                depth: depth + 1,
                inside_string: true,
            }),
            _ if in_string => {}
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            ',' if chars.get(i + 1) == Some(&' ') => cuts.push(Cut {
                end: i + 1,
                resume: i + 2,
                depth,
                inside_string: false,
            }),
            ' ' if precedes_spaced_operator(&chars[i + 1..]) => cuts.push(Cut {
                end: i,
                resume: i + 1,
                depth,
                inside_string: false,
            }),
            _ => {}
        }
    }
    (cuts, inside)
}

/// Whether `rest` starts with a spaced binary operator and its trailing space.
fn precedes_spaced_operator(rest: &[char]) -> bool {
    let Some(len) = rest.iter().position(|&c| c == ' ') else {
        return false;
    };
    let token: String = rest[..len].iter().collect();
    SPACED_OPERATORS.contains(&token.as_str())
}

fn wrap_line(out: &mut String, line: &str, width: usize) {
    let chars: Vec<char> = line.chars().collect();
    let (cuts, inside_string) = find_cuts(&chars);
    let leading = chars.iter().take_while(|&&c| c == ' ').count();
    let continuation: String = " ".repeat(leading + CONTINUATION_INDENT);
    let (mut start, mut prefix_len, mut next_cut) = (0, 0, 0);
    loop {
        // Room for at least a character and a closing quote, however deep the line began.
        let room = width.saturating_sub(prefix_len).max(2);
        if chars.len() - start <= room {
            out.extend(&chars[start..]);
            return;
        }
        while next_cut < cuts.len() && cuts[next_cut].end <= start {
            next_cut += 1;
        }
        // A cut inside a string closes it with a quote, which takes a column.
        let fitting = cuts[next_cut..]
            .iter()
            .take_while(|cut| cut.end - start + usize::from(cut.inside_string) <= room)
            .count();
        let fitting = &cuts[next_cut..next_cut + fitting];
        let half = start + room / 2;
        let cut = fitting
            .iter()
            .filter(|cut| cut.end >= half)
            .max_by_key(|cut| (Reverse(cut.depth), cut.end))
            .or(fitting.last())
            .copied()
            .unwrap_or_else(|| {
                let end = start + room - 1;
                Cut {
                    end,
                    resume: end,
                    depth: 0,
                    inside_string: inside_string[end],
                }
            });
        out.extend(&chars[start..cut.end]);
        out.push_str(if cut.inside_string { "\"\n" } else { "\n" });
        out.push_str(&continuation);
        prefix_len = continuation.len();
        if cut.inside_string {
            out.push('"');
            prefix_len += 1;
        }
        start = cut.resume;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `wrapped`'s lines joined back: continuation indents dropped, strings rejoined.
    fn unwrapped(wrapped: &str, continuation: &str) -> String {
        let mut out = String::new();
        for (i, line) in wrapped.lines().enumerate() {
            let mut piece = line;
            if i > 0 {
                piece = piece
                    .strip_prefix(continuation)
                    .expect("continuation indent");
                if out.ends_with('"') && piece.starts_with('"') {
                    out.pop();
                    piece = &piece[1..];
                } else if !out.ends_with(' ') {
                    out.push(' ');
                }
            }
            out.push_str(piece);
        }
        out
    }

    #[test]
    fn short_lines_are_untouched() {
        let text = "  let x = a + b\nfor (x, 0, 10) {\n}\n";
        assert_eq!(wrap_long_lines(text, 20), text);
    }

    #[test]
    fn long_expressions_break_before_operators_and_after_commas() {
        let terms: Vec<String> = (0..40).map(|i| format!("min(term{i}, {i})")).collect();
        let line = format!("  let t = {}", terms.join(" + "));
        let wrapped = wrap_long_lines(&line, 60);
        assert!(wrapped.lines().count() > 10);
        for l in wrapped.lines() {
            assert!(l.chars().count() <= 60, "{l:?}");
        }
        // Breaks fall between operands, before the `+`, and keep the indentation.
        for l in wrapped.lines().skip(1) {
            assert!(l.starts_with("      + min(term"), "{l:?}");
        }
        assert_eq!(unwrapped(&wrapped, "      "), line);
    }

    #[test]
    fn strings_are_closed_and_reopened_at_spaces() {
        let words = "the buffer covers fewer points than the pipeline reads ".repeat(8);
        let line = format!("assert(a < b, \"{words}{{a}} of {{b}}\")");
        let wrapped = wrap_long_lines(&line, 70);
        for l in wrapped.lines() {
            assert!(l.chars().count() <= 70, "{l:?}");
        }
        let mut lines = wrapped.lines();
        assert_eq!(
            lines.next(),
            Some("assert(a < b, \"the buffer covers fewer points than the pipeline \"")
        );
        assert!(lines.all(|l| l.starts_with("    \"")));
        assert_eq!(unwrapped(&wrapped, "    "), line);
    }

    #[test]
    fn a_run_without_cut_points_is_cut_where_the_room_ends() {
        let line = "x".repeat(250);
        let wrapped = wrap_long_lines(&line, 100);
        let lengths: Vec<usize> = wrapped.lines().map(str::len).collect();
        assert_eq!(lengths, [99, 4 + 95, 4 + 56]);
    }
}
