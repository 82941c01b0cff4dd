//! Relative links of the Markdown files, checked as GitHub renders them: every `](path#anchor)` names a file or
//! folder of the repository, and an anchor into a Markdown file is the slug of one of its headings.

use std::collections::{BTreeMap, BTreeSet};

/// A link that leads nowhere: the file it is in, the link as written, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Broken {
    pub(crate) file: String,
    pub(crate) link: String,
    pub(crate) why: &'static str,
}

/// The relative links of `documents` (each Markdown file's path, relative to the repository and `/`-separated, with
/// its text) that lead nowhere. A link to a Markdown file is checked against `documents`; a link to anything else
/// against `exists`, which says whether a repository path is a file or folder.
pub(crate) fn broken_links(documents: &BTreeMap<String, String>, exists: impl Fn(&str) -> bool) -> Vec<Broken> {
    let anchors: BTreeMap<&str, BTreeSet<String>> =
        documents.iter().map(|(path, text)| (path.as_str(), heading_anchors(text))).collect();
    let mut broken = Vec::new();
    for (file, text) in documents {
        for link in links(text) {
            let (path, anchor) =
                link.split_once('#').map_or((link.as_str(), None), |(path, anchor)| (path, Some(anchor)));
            let target = if path.is_empty() { Some(file.clone()) } else { resolve(file, path) };
            let why = match &target {
                None => Some("it leads outside the repository"),
                Some(target) if target.ends_with(".md") => match (anchors.get(target.as_str()), anchor) {
                    (None, _) => Some("no such Markdown file"),
                    (Some(headings), Some(anchor)) if !headings.contains(anchor) => Some("no heading has that anchor"),
                    _ => None,
                },
                Some(target) if !exists(target) => Some("no such file or folder"),
                Some(_) => None,
            };
            if let Some(why) = why {
                broken.push(Broken { file: file.clone(), link: link.clone(), why });
            }
        }
    }
    broken
}

/// The destinations of the inline links of `text` (`[text](destination)`, images too) that are relative: neither
/// a URL with a scheme nor an absolute path. Fenced code blocks and code spans are skipped.
fn links(text: &str) -> Vec<String> {
    let mut prose = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    // Outside code spans: every other piece between backquotes, counted afresh in each paragraph.
    let outside: String =
        prose.split("\n\n").flat_map(|paragraph| paragraph.split('`').step_by(2).chain(["\n\n"])).collect();
    outside
        .split("](")
        .skip(1)
        .filter_map(|rest| {
            let rest = rest.trim_start();
            let end = rest.find(|c: char| c == ')' || c.is_whitespace())?;
            Some(rest[..end].to_owned())
        })
        .filter(|link| {
            let scheme = link.split_once(':').is_some_and(|(scheme, _)| {
                !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
            });
            !link.is_empty() && !scheme && !link.starts_with('/')
        })
        .collect()
}

/// `path` taken relative to the folder of `from`, both relative to the repository; `None` when it climbs out.
fn resolve(from: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// The anchors of the headings of a Markdown text, as GitHub makes them: each heading's slug, with `-1`, `-2`, ...
/// after the slug of a heading that came before.
pub(crate) fn heading_anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut anchors = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        let Some(title) = line[hashes..].strip_prefix(' ') else { continue };
        if fenced || !(1..=6).contains(&hashes) {
            continue;
        }
        let slug = slug(title.trim().trim_end_matches('#').trim_end());
        let count = seen.entry(slug.clone()).or_insert(0);
        anchors.insert(if *count == 0 { slug.clone() } else { format!("{slug}-{count}") });
        *count += 1;
    }
    anchors
}

/// A heading's GitHub slug: the text of its links kept, lowercased, every character but letters, digits, `-` and
/// `_` dropped, and each space a `-`.
pub(crate) fn slug(title: &str) -> String {
    let mut text = String::new();
    let mut rest = title;
    // `[text](destination)` reads as its text.
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        match after.find("](").and_then(|close| after[close..].find(')').map(|end| (close, close + end))) {
            Some((close, end)) => {
                text.push_str(&rest[..open]);
                text.push_str(&after[..close]);
                rest = &after[end + 1..];
            }
            None => break,
        }
    }
    text.push_str(rest);
    text.chars()
        .flat_map(char::to_lowercase)
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_have_github_anchors() {
        assert_eq!(slug("The attempt record's event table"), "the-attempt-records-event-table");
        assert_eq!(slug("`bench_worker.py`"), "bench_workerpy");
        assert_eq!(slug("Confinement, third round"), "confinement-third-round");
        assert_eq!(slug("Dolan–Moré profiles"), "dolanmoré-profiles");
        assert_eq!(slug("See [the store](store.md) first"), "see-the-store-first");
        let text = "# Top\n\n## What is left open\n\n```sh\n# not a heading\n```\n\n### What is left open\n#no\n";
        let anchors: Vec<String> = heading_anchors(text).into_iter().collect();
        assert_eq!(anchors, ["top", "what-is-left-open", "what-is-left-open-1"]);
    }

    #[test]
    fn a_planted_broken_link_of_each_kind_is_found() {
        let documents: BTreeMap<String, String> = [
            (
                "README.md",
                "# Readme\n\nSee [the docs](docs/topic.md#a-heading), [its top](docs/topic.md), [a folder](examples/) and\n\
                 [the code](\n    src/lib.rs). [Here](#readme) and [there](https://example.org/x#y).\n\
                 [Gone](docs/gone.md), [no heading](docs/topic.md#another-heading), [no file](src/gone.rs),\n\
                 [outside](../shared/notes.md), [self](#nothing).\n\n```md\n[in a block](nowhere.md)\n```\n\n\
                 A code span: `[x](nowhere.md)`, and [after it](docs/gone.md#x).\n",
            ),
            ("docs/topic.md", "# Topic\n\n## A heading\n\nBack to [the README](../README.md#readme).\n"),
        ]
        .into_iter()
        .map(|(path, text)| (path.to_owned(), text.to_owned()))
        .collect();
        let exists = |path: &str| ["examples", "src/lib.rs"].contains(&path);
        let found: Vec<(String, &str)> =
            broken_links(&documents, exists).into_iter().map(|broken| (broken.link, broken.why)).collect();
        assert_eq!(
            found,
            [
                ("docs/gone.md".to_owned(), "no such Markdown file"),
                ("docs/topic.md#another-heading".to_owned(), "no heading has that anchor"),
                ("src/gone.rs".to_owned(), "no such file or folder"),
                ("../shared/notes.md".to_owned(), "it leads outside the repository"),
                ("#nothing".to_owned(), "no heading has that anchor"),
                ("docs/gone.md#x".to_owned(), "no such Markdown file"),
            ]
        );
    }
}
