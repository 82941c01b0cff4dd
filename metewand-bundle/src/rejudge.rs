//! `verify --rejudge`: every stored result of a bundle, and every checkpoint of a streamed one, judged again by the
//! bundled repository's evaluator, each in a fresh confined session of its own (through the runtime's [`metewand_runtime::rejudge`]), on the bundle's
//! dataset, and the verdict and metrics compared with the record's. Evaluators are held to equality: the same
//! result and dataset must be given the same verdict and the same metrics, compared in canonical form.

use std::path::Path;

use metewand_campaign::folder::{Found, read_attempt};
use metewand_campaign::read_campaign;
use metewand_runtime::repository::CheckedRepository;

use crate::error::BundleError;
use crate::manifest::Manifest;
use crate::verify::Difference;

/// What judging a bundle's results again found.
#[derive(Debug, Default)]
pub struct Rejudged {
    /// The results judged again.
    pub judged: u64,
    /// The checkpoints of streamed results judged again.
    pub checkpoints: u64,
    /// Every record whose verdict or metrics differ from what the evaluator now answers.
    pub differences: Vec<Difference>,
    /// Every record with a verdict that could not be judged again (its dataset is not in the bundle, or the
    /// evaluator did not answer): neither confirmed nor contradicted, so listed apart from the differences.
    pub unjudged: Vec<Difference>,
}

/// Judges every result of the unpacked bundle `folder` again, one fresh evaluator session per record with a
/// verdict, the sessions' folders made in the system's temporary folder.
pub fn rejudge(folder: &Path, manifest: &Manifest) -> Result<Rejudged, BundleError> {
    let root = folder.join("repository");
    let repository = CheckedRepository::load(&root).map_err(|error| BundleError::Source {
        path: root.clone(),
        reason: format!("the bundled repository does not check: {error}"),
    })?;
    let mut rejudged = Rejudged::default();
    for campaign in &manifest.document.campaigns {
        let prefix = format!("campaigns/{}", campaign.folder.as_str());
        let base = folder.join(&prefix);
        let file = read_campaign(&base)
            .map_err(|error| BundleError::Source { path: base.clone(), reason: error.to_string() })?;
        for planned in &file.attempts {
            let id = planned.id.to_string();
            let Found::Record(record) = read_attempt(&base, &id) else { continue };
            let Some(verdict) = record.verdict else { continue };
            let path = format!("{prefix}/attempts/{id}/attempt.json");
            let differ = |what: String| Difference::Record { path: path.clone(), what };
            let key = record.dataset.key.to_string();
            let dataset = folder.join("datasets").join(&key);
            if !dataset.is_dir() {
                let what =
                    format!("cannot be judged again: the bundle holds no dataset {key} (bundle with --with-datasets)");
                rejudged.unjudged.push(differ(what));
                continue;
            }
            let result = base.join("attempts").join(&id).join("work/result");
            let work = tempfile::Builder::new()
                .prefix("metewand-rejudge-")
                .tempdir()
                .map_err(BundleError::io("create a temporary folder for", &result))?;
            let judged = metewand_runtime::rejudge::rejudge(
                &repository,
                record.problem.name.as_str(),
                &dataset,
                &result,
                &work.path().join("evaluator"),
            );
            let judged = match judged {
                Ok(judged) => judged,
                Err(error) => {
                    rejudged.unjudged.push(differ(format!("cannot be judged again: {error}")));
                    continue;
                }
            };
            rejudged.judged += 1;
            if judged.verdict != verdict {
                let what = format!("judged again, the verdict is {}, and the record says {verdict}", judged.verdict);
                rejudged.differences.push(differ(what));
            }
            let canonical = |metrics: &metewand_runtime::protocol::strict::JsonObject| {
                let value = serde_json::to_value(metrics).expect("metrics serialize");
                metewand_runtime::protocol::to_canonical_string(&value)
            };
            let tolerance =
                repository.problem(record.problem.name.as_str()).and_then(|problem| problem.rejudge_tolerance());
            let now = canonical(&judged.metrics);
            let recorded = record.metrics.as_ref().map(canonical).unwrap_or_else(|| "null".to_owned());
            let agree =
                record.metrics.as_ref().is_some_and(|metrics| metrics_agree(&judged.metrics, metrics, tolerance));
            if !agree {
                rejudged
                    .differences
                    .push(differ(format!("judged again, the metrics are {now}, and the record says {recorded}")));
            }
            // Each checkpoint of a streamed result, each in a session of its own, against its profile point.
            for point in &record.implementation.profile {
                let number = point.checkpoint.get();
                let checkpoint = result.join("checkpoints").join(number.to_string());
                let evaluator = work.path().join(format!("evaluator-{number}"));
                let problem = record.problem.name.as_str();
                let judged =
                    match metewand_runtime::rejudge::rejudge(&repository, problem, &dataset, &checkpoint, &evaluator) {
                        Ok(judged) => judged,
                        Err(error) => {
                            rejudged
                                .unjudged
                                .push(differ(format!("checkpoint {number} cannot be judged again: {error}")));
                            continue;
                        }
                    };
                rejudged.checkpoints += 1;
                if judged.verdict != point.verdict {
                    rejudged.differences.push(differ(format!(
                        "checkpoint {number} judged again, the verdict is {}, and the record says {}",
                        judged.verdict, point.verdict
                    )));
                }
                let (now, recorded) = (canonical(&judged.metrics), canonical(&point.metrics));
                if !metrics_agree(&judged.metrics, &point.metrics, tolerance) {
                    rejudged.differences.push(differ(format!(
                        "checkpoint {number} judged again, the metrics are {now}, and the record says {recorded}"
                    )));
                }
            }
        }
    }
    Ok(rejudged)
}

/// Whether metrics judged again agree with the recorded ones: equal in canonical form, or with a problem's
/// `tolerance`, the same keys, each number within `tolerance` × max(1, |now|, |recorded|) of the other and every
/// other value equal.
fn metrics_agree(
    now: &metewand_runtime::protocol::strict::JsonObject,
    recorded: &metewand_runtime::protocol::strict::JsonObject,
    tolerance: Option<f64>,
) -> bool {
    use metewand_runtime::protocol::to_canonical_string as canonical;
    let as_value = |metrics| serde_json::to_value(metrics).expect("metrics serialize");
    let (now, recorded) = (as_value(now), as_value(recorded));
    // Compared in canonical form: `1` and `1.0` are one number.
    let Some(tolerance) = tolerance else { return canonical(&now) == canonical(&recorded) };
    let (Some(now), Some(recorded)) = (now.as_object(), recorded.as_object()) else { return false };
    now.len() == recorded.len()
        && now.iter().all(|(key, value)| match (value.as_f64(), recorded.get(key)) {
            (Some(a), Some(other)) if other.is_number() => {
                let b = other.as_f64().unwrap_or(f64::NAN);
                (a - b).abs() <= tolerance * 1f64.max(a.abs()).max(b.abs())
            }
            (_, Some(other)) => canonical(value) == canonical(other),
            (_, None) => false,
        })
}
