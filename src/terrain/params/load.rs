//! Settings read from RON text ([`from_ron`]) with a typed [`RonError`] that
//! names the offending key by its full path (`roads.contour.denisty`).

use ron::error::{Position, SpannedError};
use serde::de::DeserializeOwned;
use thiserror::Error;

/// Why settings text could not be read. `path` is the key's full path from
/// the top of the text (`roads.highways.step`, `fields[2].size`; empty at
/// the top level); lines and columns count from 1.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RonError {
    /// A key the settings type does not have (a misspelling, usually).
    #[error("{path}: unknown key `{key}` (line {line}, column {col}); expected one of {expected}")]
    UnknownKey {
        /// The key's full path, ending in the key.
        path: String,
        /// The key as written.
        key: String,
        /// The keys that the struct takes, comma-separated.
        expected: String,
        /// Where the key is.
        line: usize,
        /// Where the key is.
        col: usize,
    },
    /// Anything else: bad syntax, a value of the wrong type, an unknown
    /// variant.
    #[error("{}: {message} (line {line}, column {col})", shown(.path))]
    Invalid {
        /// The full path of the value being read.
        path: String,
        /// What is wrong.
        message: String,
        /// Where.
        line: usize,
        /// Where.
        col: usize,
    },
}

fn shown(path: &str) -> &str {
    if path.is_empty() { "top level" } else { path }
}

/// A `T` from RON `text`; an error names the offending key by its path.
pub fn from_ron<T: DeserializeOwned>(text: &str) -> Result<T, RonError> {
    ron::from_str(text).map_err(|e| RonError::new(text, e))
}

impl RonError {
    /// The error `e` met in `text`, with the path of the key it concerns.
    pub fn new(text: &str, e: SpannedError) -> Self {
        let Position { line, col } = e.span.start;
        let frames = frames_at(text, offset(text, e.span.start));
        match e.code {
            ron::Error::NoSuchStructField {
                expected, found, ..
            } => Self::UnknownKey {
                path: join_key(path_of(&frames, false), &found),
                key: found,
                expected: expected.join(", "),
                line,
                col,
            },
            code => Self::Invalid {
                path: path_of(&frames, true),
                message: code.to_string(),
                line,
                col,
            },
        }
    }

    /// The full path of the key or value concerned.
    pub fn path(&self) -> &str {
        match self {
            Self::UnknownKey { path, .. } | Self::Invalid { path, .. } => path,
        }
    }
}

fn join_key(mut path: String, key: &str) -> String {
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(key);
    path
}

/// The byte offset of a 1-based line and column (in characters).
fn offset(text: &str, pos: Position) -> usize {
    let mut start = 0;
    for _ in 1..pos.line {
        match text[start..].find('\n') {
            Some(k) => start += k + 1,
            None => return text.len(),
        }
    }
    (text[start..].char_indices())
        .nth(pos.col.saturating_sub(1))
        .map_or(text.len(), |(k, _)| start + k)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    Paren,
    List,
}

/// A bracket open at the error: a struct (its current key), a tuple or a
/// list (its current item).
struct Frame {
    open: Open,
    key: Option<String>,
    index: usize,
    /// `Some(…)`: adds nothing to the path.
    transparent: bool,
}

/// The brackets open at byte `end` of `text`, outermost first.
fn frames_at(text: &str, end: usize) -> Vec<Frame> {
    let b = text.as_bytes();
    let end = end.min(b.len());
    let mut frames: Vec<Frame> = Vec::new();
    let mut ident: Option<&str> = None;
    let mut i = 0;
    while i < end {
        let c = b[i];
        let next = b.get(i + 1).copied();
        match c {
            b'/' if next == Some(b'/') => {
                i = text[i..].find('\n').map_or(b.len(), |k| i + k);
                continue;
            }
            b'/' if next == Some(b'*') => {
                i = skip_block_comment(b, i);
                continue;
            }
            b'"' | b'\'' => {
                i = skip_quoted(b, i, c);
                ident = None;
                continue;
            }
            b'(' | b'[' | b'{' => {
                frames.push(Frame {
                    open: if c == b'(' { Open::Paren } else { Open::List },
                    key: None,
                    index: 0,
                    transparent: c == b'(' && ident == Some("Some"),
                });
                ident = None;
            }
            b')' | b']' | b'}' => {
                frames.pop();
                ident = None;
            }
            b',' => {
                if let Some(f) = frames.last_mut() {
                    f.index += 1;
                    f.key = None;
                }
                ident = None;
            }
            b':' => {
                if let (Some(k), Some(f)) = (ident, frames.last_mut())
                    && f.open == Open::Paren
                {
                    f.key = Some(k.to_owned());
                }
                ident = None;
            }
            c if c == b'_' || c.is_ascii_alphabetic() => {
                let start = i;
                while i < b.len() && (b[i] == b'_' || b[i].is_ascii_alphanumeric()) {
                    i += 1;
                }
                let word = &text[start..i];
                match b.get(i) {
                    // A raw string `r"…"`, `r#"…"#` (or `br…`).
                    Some(b'"' | b'#') if matches!(word, "r" | "br") && !raw_ident(b, i) => {
                        i = skip_raw_string(b, i);
                        ident = None;
                    }
                    // A raw identifier `r#name`.
                    Some(b'#') if word == "r" => {
                        let s = i + 1;
                        i = s;
                        while i < b.len() && (b[i] == b'_' || b[i].is_ascii_alphanumeric()) {
                            i += 1;
                        }
                        ident = Some(&text[s..i]);
                    }
                    _ => ident = Some(word),
                }
                continue;
            }
            c if c.is_ascii_digit() => {
                // A number, exponent sign included.
                while i < b.len()
                    && (b[i].is_ascii_alphanumeric()
                        || b[i] == b'_'
                        || b[i] == b'.'
                        || (matches!(b[i], b'+' | b'-') && matches!(b[i - 1], b'e' | b'E')))
                {
                    i += 1;
                }
                ident = None;
                continue;
            }
            c if c.is_ascii_whitespace() => {}
            _ => ident = None,
        }
        i += 1;
    }
    frames
}

/// Whether `#` at `i` starts a raw identifier (`r#name`), not a raw string.
fn raw_ident(b: &[u8], i: usize) -> bool {
    b.get(i) == Some(&b'#')
        && b.get(i + 1)
            .is_some_and(|&c| c == b'_' || c.is_ascii_alphabetic())
}

/// Past a `/* … */` comment (nested ones included) starting at `i`.
fn skip_block_comment(b: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < b.len() {
        if b[i..].starts_with(b"/*") {
            depth += 1;
            i += 2;
        } else if b[i..].starts_with(b"*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    i
}

/// Past a string or character literal opened by `quote` at `i`.
fn skip_quoted(b: &[u8], mut i: usize, quote: u8) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// Past a raw string whose `#`s or `"` start at `i`.
fn skip_raw_string(b: &[u8], mut i: usize) -> usize {
    let hashes = b[i..].iter().take_while(|&&c| c == b'#').count();
    i += hashes + 1;
    while i < b.len() {
        if b[i] == b'"'
            && b[i + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == b'#')
                .count()
                == hashes
        {
            return i + 1 + hashes;
        }
        i += 1;
    }
    i
}

/// The path the frames stand at; without the innermost frame's own key or
/// item when `with_last` is false (an unknown key: its struct's path).
fn path_of(frames: &[Frame], with_last: bool) -> String {
    let mut path = String::new();
    for (k, f) in frames.iter().enumerate() {
        if k + 1 == frames.len() && !with_last {
            break;
        }
        match (f.open, &f.key) {
            (Open::List, _) => path.push_str(&format!("[{}]", f.index)),
            (Open::Paren, Some(key)) => path = join_key(path, key),
            // The top-level struct and `Some(…)` add nothing.
            (Open::Paren, None) if k == 0 || f.transparent => {}
            (Open::Paren, None) => path = join_key(path, &f.index.to_string()),
        }
    }
    path
}
