//! The plan: a campaign's cells × repetitions, each attempt with its stable id (see
//! [`metewand_runtime::identity::attempt_id`]), and the distinct dataset keys they need.
//!
//! Attempts are held as indices into the plan's name and key tables, so a plan of a million attempts stays a few
//! tens of bytes per attempt beside its id.

use std::collections::BTreeMap;

use crate::ids::{IdMap, id_map};
use metewand_protocol::common::Name;
use metewand_protocol::strict::SafeUint;
use metewand_runtime::CheckedRepository;
use metewand_runtime::attempt::{AttemptPlan, PlanError as RuntimePlanError, RunOptions, expected_confinement};
use metewand_runtime::identity::{AttemptId, DatasetKey, attempt_id};
use metewand_runtime::repository::{
    CampaignSpec, DefinitionKind, MAX_PLAN_ATTEMPTS, Seeds, SelectionError, SelectionErrorKind,
};
use metewand_runtime::session::{ConfinementReport, KernelSupport};

/// The name of a campaign built from flags alone begins with this, followed by a digest of its axes, so two
/// different ad-hoc campaigns never share a folder.
pub const AD_HOC_PREFIX: &str = "ad-hoc-";

/// What a plan could not be built from.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// No `[campaigns.NAME]` of that name.
    #[error("the repository has no campaign named {name:?} (it has: {known})")]
    UnknownCampaign {
        /// The name asked for.
        name: String,
        /// The campaigns it has, comma-separated, or `none`.
        known: String,
    },
    /// No campaign named, and the repository has none, or several of which none is named `default`.
    #[error("name the campaign with --campaign: the repository has {known}, and none is its default")]
    NoDefaultCampaign {
        /// The campaigns it has, comma-separated, or `no campaign`.
        known: String,
    },
    /// An axis value the repository does not declare.
    #[error("the repository has no {kind} named {name:?}{} (it has: {known})", metewand_runtime::attempt::guess(.name, .known))]
    UnknownName {
        /// `problem`, `dataset` or `implementation`.
        kind: &'static str,
        /// The name given.
        name: String,
        /// What it has.
        known: String,
    },
    /// An axis given empty, or the repository has nothing for it.
    #[error("the campaign has no {kind}: give at least one")]
    EmptyAxis {
        /// The axis.
        kind: &'static str,
    },
    /// More attempts than a campaign may hold.
    #[error("the campaign plans {size} attempts, more than the {MAX_PLAN_ATTEMPTS} a campaign may hold")]
    TooLarge {
        /// The plan's size.
        size: u64,
    },
    /// A selection of grid points that names none.
    #[error("{0}")]
    Selection(SelectionError),
    /// An attempt's names that select more than one definition each.
    #[error("{0}")]
    Attempt(String),
    /// Repetitions of zero.
    #[error("repetitions must be at least 1")]
    NoRepetitions,
}

impl From<RuntimePlanError> for PlanError {
    fn from(error: RuntimePlanError) -> PlanError {
        match error {
            RuntimePlanError::Unknown { kind, name, known } => PlanError::UnknownName { kind, name, known },
            RuntimePlanError::Selection(error) => PlanError::Selection(error),
            several @ RuntimePlanError::Several { .. } => PlanError::Attempt(several.to_string()),
        }
    }
}

/// Axis flags that narrow or replace a named campaign's axes (or build an ad-hoc one); `None` keeps the axis.
#[derive(Clone, Debug, Default)]
pub struct Axes {
    /// `--problem`, repeatable.
    pub problems: Option<Vec<String>>,
    /// `--dataset`, repeatable.
    pub datasets: Option<Vec<String>>,
    /// `--implementation`, repeatable.
    pub implementations: Option<Vec<String>>,
    /// `--dataset-seeds`.
    pub dataset_seeds: Option<Seeds>,
    /// `--implementation-seeds`.
    pub implementation_seeds: Option<Seeds>,
    /// `--repetitions`.
    pub repetitions: Option<u64>,
}

pub use metewand_runtime::protocol::generated::campaign_file::{Definition, PlanEntry, SeedAxis};

/// A seed axis as `campaign.json` records it: `list`, or `first` and `count`.
pub fn seed_axis(seeds: &Seeds) -> SeedAxis {
    match seeds {
        Seeds::List(list) => SeedAxis { list: list.clone(), first: None, count: None },
        Seeds::Range { from, count } => SeedAxis {
            list: Vec::new(),
            first: Some(*from),
            count: Some(SafeUint::try_from(*count).unwrap_or(SafeUint::MAX)),
        },
    }
}

/// The seeds a recorded axis names, or `None` for an axis that is neither a nonempty list nor a first and a count.
pub fn seeds_of(axis: &SeedAxis) -> Option<Seeds> {
    match (axis.list.is_empty(), axis.first, axis.count) {
        (false, None, None) => Some(Seeds::List(axis.list.clone())),
        (true, Some(from), Some(count)) if count.get() >= 1 => Some(Seeds::Range { from, count: count.get() }),
        _ => None,
    }
}

/// The axes a campaign's recorded definition (`campaign.json`) names, to build its plan again with
/// [`CampaignPlan::new`] and [`recorded_name`]; `None` when a seed axis is neither a nonempty list nor a first and a
/// count.
pub fn recorded_axes(definition: &Definition) -> Option<Axes> {
    Some(Axes {
        problems: Some(names(&definition.problems)),
        datasets: Some(names(&definition.datasets)),
        implementations: Some(names(&definition.implementations)),
        dataset_seeds: Some(seeds_of(&definition.dataset_seeds)?),
        implementation_seeds: Some(seeds_of(&definition.implementation_seeds)?),
        repetitions: Some(definition.repetitions.get()),
    })
}

fn names(names: &[Name]) -> Vec<String> {
    names.iter().map(|name| name.as_str().to_owned()).collect()
}

/// The `[campaigns.NAME]` a recorded campaign's name names, `None` for an ad-hoc campaign (built from flags alone).
pub fn recorded_name(name: &str) -> Option<&str> {
    (!name.starts_with(AD_HOC_PREFIX)).then_some(name)
}

/// One attempt of the plan, by indices into [`CampaignPlan`]'s tables.
#[derive(Clone, Debug)]
pub struct PlannedAttempt {
    /// The stable id.
    pub id: AttemptId,
    /// Index into [`CampaignPlan::problems`].
    pub problem: u32,
    /// Index into [`CampaignPlan::datasets`].
    pub dataset: u32,
    /// Index into [`CampaignPlan::implementations`].
    pub implementation: u32,
    /// The dataset seed.
    pub dataset_seed: SafeUint,
    /// The implementation seed.
    pub implementation_seed: SafeUint,
    /// The repetition, from 1.
    pub repetition: u64,
    /// Index into [`CampaignPlan::keys`].
    pub key: u32,
    /// The earlier attempt of the plan (its index) with the same id, when there is one: the two cells share every
    /// input (a one-shot implementation on a problem and on its profile twin), so the attempt is run once, for the
    /// first, and its record serves both.
    pub shared_with: Option<u32>,
}

/// A planned attempt before its id is computed.
struct Unnamed {
    problem: u32,
    dataset: u32,
    implementation: u32,
    dataset_seed: SafeUint,
    implementation_seed: SafeUint,
    repetition: u64,
    key: u32,
}

/// A distinct dataset the plan needs: its key, and the dataset and seed that give it.
#[derive(Clone, Debug)]
pub struct PlannedDataset {
    /// The key.
    pub key: DatasetKey,
    /// Index into [`CampaignPlan::datasets`].
    pub dataset: u32,
    /// The seed.
    pub seed: SafeUint,
}

/// Every attempt of a campaign, in plan order (problem, dataset, dataset seed, implementation, implementation
/// seed, repetition: the axes' orders as written).
#[derive(Debug)]
pub struct CampaignPlan<'r> {
    repository: &'r CheckedRepository,
    definition: Definition,
    problems: Vec<String>,
    datasets: Vec<String>,
    implementations: Vec<String>,
    keys: Vec<PlannedDataset>,
    attempts: Vec<PlannedAttempt>,
    sessions: metewand_protocol::generated::attempt_record::SessionMode,
    warmup: u64,
}

/// The definitions an axis's selections name (a grid's name every point of it, `NAME[key=value]` some), in order,
/// each once.
fn select(repository: &CheckedRepository, names: &[String], kind: DefinitionKind) -> Result<Vec<String>, PlanError> {
    if names.is_empty() {
        return Err(PlanError::EmptyAxis { kind: kind.as_str() });
    }
    let mut out = Vec::with_capacity(names.len());
    let mut seen = std::collections::BTreeSet::new();
    for name in names {
        let points = repository.select(kind, name).map_err(|error| match error.into_kind() {
            SelectionErrorKind::UnknownName { kind, name, known, .. } => PlanError::UnknownName { kind, name, known },
            other => PlanError::Selection(other.into()),
        })?;
        for point in points {
            if seen.insert(point) {
                out.push(point.to_owned());
            }
        }
    }
    Ok(out)
}

/// A campaign's name as `campaign.json` holds it: a repository's campaign's, checked when the repository was, or an
/// ad-hoc one's, never empty.
fn campaign_name(name: &str) -> Name {
    Name::try_from(name).expect("a campaign's name is a checked name or ad-hoc- and a digest")
}

fn dedup(names: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(names.len());
    for name in names {
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// The campaign a submission is judged in: `name` when given (it must exist), else the repository's one campaign,
/// or of several the one named `default`.
pub fn default_campaign<'a>(repository: &'a CheckedRepository, name: Option<&'a str>) -> Result<&'a str, PlanError> {
    let campaigns = repository.campaigns();
    let known = || {
        if campaigns.is_empty() {
            "no campaign".to_owned()
        } else {
            campaigns.keys().cloned().collect::<Vec<_>>().join(", ")
        }
    };
    match name {
        Some(name) if campaigns.contains_key(name) => Ok(name),
        Some(name) => Err(PlanError::UnknownCampaign { name: name.to_owned(), known: known() }),
        None if campaigns.len() == 1 => Ok(campaigns.keys().next().expect("one campaign").as_str()),
        None => campaigns
            .get_key_value("default")
            .map(|(name, _)| name.as_str())
            .ok_or_else(|| PlanError::NoDefaultCampaign { known: known() }),
    }
}

impl<'r> CampaignPlan<'r> {
    /// The plan of campaign `name` of the repository with `axes` applied, or of an ad-hoc campaign over every
    /// problem, dataset and implementation (seeds `[0]`, one repetition) when `name` is `None`.
    pub fn new(
        repository: &'r CheckedRepository,
        name: Option<&str>,
        axes: &Axes,
    ) -> Result<CampaignPlan<'r>, PlanError> {
        let mut spec = match name {
            Some(name) => repository.campaign(name).cloned().ok_or_else(|| PlanError::UnknownCampaign {
                name: name.to_owned(),
                known: if repository.campaigns().is_empty() {
                    "none; declare one as [campaigns.NAME] in metewand.toml".to_owned()
                } else {
                    repository.campaigns().keys().cloned().collect::<Vec<_>>().join(", ")
                },
            })?,
            None => CampaignSpec {
                name: String::new(),
                problems: repository.problems().keys().cloned().collect(),
                datasets: repository.datasets().keys().cloned().collect(),
                implementations: repository.implementations().keys().cloned().collect(),
                dataset_seeds: Seeds::zero(),
                implementation_seeds: Seeds::zero(),
                repetitions: 1,
                sessions: metewand_protocol::generated::attempt_record::SessionMode::Fresh,
                warmup: 0,
            },
        };
        if let Some(problems) = &axes.problems {
            spec.problems = dedup(problems.clone());
        }
        if let Some(datasets) = &axes.datasets {
            spec.datasets = dedup(datasets.clone());
        }
        match &axes.implementations {
            Some(implementations) => spec.implementations = dedup(implementations.clone()),
            // External folders' implementations join every campaign the axes leave whole.
            None => {
                for name in repository.external_implementations() {
                    if !spec.implementations.iter().any(|planned| planned == name) {
                        spec.implementations.push(name.to_owned());
                    }
                }
            }
        }
        if let Some(seeds) = &axes.dataset_seeds {
            spec.dataset_seeds = seeds.clone();
        }
        if let Some(seeds) = &axes.implementation_seeds {
            spec.implementation_seeds = seeds.clone();
        }
        if let Some(repetitions) = axes.repetitions {
            spec.repetitions = repetitions;
        }
        spec.problems = select(repository, &spec.problems, DefinitionKind::Problem)?;
        spec.datasets = select(repository, &spec.datasets, DefinitionKind::Dataset)?;
        spec.implementations = select(repository, &spec.implementations, DefinitionKind::Implementation)?;
        if spec.repetitions == 0 {
            return Err(PlanError::NoRepetitions);
        }
        if spec.dataset_seeds.is_empty() || spec.implementation_seeds.is_empty() {
            return Err(PlanError::EmptyAxis { kind: "seed" });
        }
        let size = spec.size();
        if size > MAX_PLAN_ATTEMPTS {
            return Err(PlanError::TooLarge { size });
        }
        // The names as the records hold them: every name was just found among the repository's.
        let problems = spec.problems.iter().map(|name| repository.problems()[name].checked_name().clone()).collect();
        let datasets = spec.datasets.iter().map(|name| repository.datasets()[name].checked_name().clone()).collect();
        let implementations =
            spec.implementations.iter().map(|name| repository.implementations()[name].checked_name().clone()).collect();
        let axes = Definition {
            // Replaced just below: by the campaign's name, or an ad-hoc campaign's.
            name: campaign_name(AD_HOC_PREFIX),
            problems,
            datasets,
            implementations,
            dataset_seeds: seed_axis(&spec.dataset_seeds),
            implementation_seeds: seed_axis(&spec.implementation_seeds),
            repetitions: SafeUint::try_from(spec.repetitions).unwrap_or(SafeUint::MAX),
        };
        let definition = match name {
            Some(_) => Definition { name: campaign_name(&spec.name), ..axes },
            None => {
                // An ad-hoc campaign is named after the digest of its axes under an empty name.
                let mut value = serde_json::to_value(&axes).expect("a definition serializes");
                value["name"] = serde_json::Value::String(String::new());
                let digest =
                    metewand_runtime::Sha256Digest::of(&metewand_protocol::to_canonical_vec(&value)).to_string();
                Definition { name: campaign_name(&format!("{AD_HOC_PREFIX}{}", &digest[..12])), ..axes }
            }
        };

        let mut keys: Vec<PlannedDataset> = Vec::new();
        let mut key_index: BTreeMap<(u32, u64), u32> = BTreeMap::new();
        // Every attempt but its id first; the ids (digests of canonical JSON, a million of them in a large plan) are
        // then computed on every CPU.
        let mut attempts = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        for p in 0..spec.problems.len() {
            for (d, dataset_name) in spec.datasets.iter().enumerate() {
                let dataset = &repository.datasets()[dataset_name];
                for dataset_seed in spec.dataset_seeds.iter() {
                    let key = *key_index.entry((d as u32, dataset_seed.get())).or_insert_with(|| {
                        keys.push(PlannedDataset {
                            key: dataset.key(dataset_seed),
                            dataset: d as u32,
                            seed: dataset_seed,
                        });
                        (keys.len() - 1) as u32
                    });
                    for i in 0..spec.implementations.len() {
                        for implementation_seed in spec.implementation_seeds.iter() {
                            for repetition in 1..=spec.repetitions {
                                attempts.push(Unnamed {
                                    problem: p as u32,
                                    dataset: d as u32,
                                    implementation: i as u32,
                                    dataset_seed,
                                    implementation_seed,
                                    repetition,
                                    key,
                                });
                            }
                        }
                    }
                }
            }
        }
        let problems: Vec<_> = spec.problems.iter().map(|name| &repository.problems()[name]).collect();
        let implementations: Vec<_> = spec
            .implementations
            .iter()
            .map(|name| {
                let implementation = &repository.implementations()[name];
                let worker = repository.worker(implementation.worker()).expect("checked references resolve");
                (implementation, worker)
            })
            .collect();
        let name = |attempt: &Unnamed| {
            let problem = problems[attempt.problem as usize];
            let (implementation, worker) = implementations[attempt.implementation as usize];
            PlannedAttempt {
                id: attempt_id(
                    problem.contract_id(),
                    problem.parameters(),
                    &keys[attempt.key as usize].key,
                    worker.identity(),
                    implementation.parameters(),
                    attempt.implementation_seed,
                    attempt.repetition,
                    problem.profile_for(implementation),
                ),
                problem: attempt.problem,
                dataset: attempt.dataset,
                implementation: attempt.implementation,
                dataset_seed: attempt.dataset_seed,
                implementation_seed: attempt.implementation_seed,
                repetition: attempt.repetition,
                key: attempt.key,
                shared_with: None,
            }
        };
        let mut attempts = crate::parallel::map_parallel(&attempts, name);
        share_twins(&mut attempts);
        Ok(CampaignPlan {
            repository,
            definition,
            problems: spec.problems,
            datasets: spec.datasets,
            implementations: spec.implementations,
            keys,
            attempts,
            sessions: spec.sessions,
            warmup: spec.warmup,
        })
    }

    /// This plan with only the attempts `keep` keeps (in plan order, each with its id), recorded as `definition`:
    /// a plan made with the most repetitions a run may give a cell, cut to the repetitions each cell has been
    /// given so far (`campaign run --until-decided`), under the definition of the repetitions first planned. Every
    /// dataset key stays: each cell keeps its first repetitions.
    pub fn restricted(&self, definition: Definition, keep: impl Fn(&PlannedAttempt) -> bool) -> CampaignPlan<'r> {
        let mut attempts: Vec<PlannedAttempt> = self
            .attempts
            .iter()
            .filter(|attempt| keep(attempt))
            .map(|attempt| PlannedAttempt { shared_with: None, ..attempt.clone() })
            .collect();
        share_twins(&mut attempts);
        CampaignPlan {
            repository: self.repository,
            definition,
            problems: self.problems.clone(),
            datasets: self.datasets.clone(),
            implementations: self.implementations.clone(),
            keys: self.keys.clone(),
            attempts,
            sessions: self.sessions,
            warmup: self.warmup,
        }
    }

    /// The attempts of the plan run for another cell's with the same id ([`PlannedAttempt::shared_with`]).
    pub fn shared(&self) -> usize {
        self.attempts.iter().filter(|attempt| attempt.shared_with.is_some()).count()
    }

    /// How the campaign's `[campaigns.NAME]` asks implementation sessions to serve attempts, and the warm-up
    /// cycles of a reused one (fresh sessions and none for an ad-hoc campaign).
    pub fn sessions(&self) -> (metewand_protocol::generated::attempt_record::SessionMode, u64) {
        (self.sessions, self.warmup)
    }

    /// The repository planned from.
    pub fn repository(&self) -> &'r CheckedRepository {
        self.repository
    }
    /// The campaign's name (for an ad-hoc one, `ad-hoc-<digest>`).
    pub fn name(&self) -> &str {
        &self.definition.name
    }
    /// The axes, as recorded.
    pub fn definition(&self) -> &Definition {
        &self.definition
    }
    /// Problem names, indexed by [`PlannedAttempt::problem`].
    pub fn problems(&self) -> &[String] {
        &self.problems
    }
    /// Dataset names, indexed by [`PlannedAttempt::dataset`].
    pub fn datasets(&self) -> &[String] {
        &self.datasets
    }
    /// Implementation names, indexed by [`PlannedAttempt::implementation`].
    pub fn implementations(&self) -> &[String] {
        &self.implementations
    }
    /// The distinct datasets, indexed by [`PlannedAttempt::key`].
    pub fn keys(&self) -> &[PlannedDataset] {
        &self.keys
    }
    /// Every attempt, in plan order.
    pub fn attempts(&self) -> &[PlannedAttempt] {
        &self.attempts
    }

    /// The confinement each worker the plan starts would run under on this machine, as `kernel` offers it, by
    /// worker name (each once).
    pub fn expected_confinement(
        &self,
        kernel: &KernelSupport,
        options: &RunOptions,
    ) -> Vec<(String, ConfinementReport)> {
        self.workers()
            .into_iter()
            .map(|name| {
                let worker = self.repository.worker(name).expect("a checked repository's references resolve");
                (name.to_owned(), expected_confinement(worker, self.repository.limits(), kernel, options))
            })
            .collect()
    }

    /// The worker of implementation `implementation` (an index into [`CampaignPlan::implementations`]), by name.
    pub fn implementation_worker(&self, implementation: u32) -> &'r str {
        self.repository.implementations()[&self.implementations[implementation as usize]].worker()
    }

    /// The workers the plan starts (every attempt is a cell of the axes' product, so these are the axes'
    /// materializers, implementation workers and evaluators), by name, sorted, each once.
    pub fn workers(&self) -> Vec<&'r str> {
        let repository = self.repository;
        let mut names: Vec<&'r str> = self
            .datasets
            .iter()
            .map(|name| repository.datasets()[name].materializer())
            .chain((0..self.implementations.len() as u32).map(|index| self.implementation_worker(index)))
            .chain(self.problems.iter().map(|name| repository.problems()[name].evaluator()))
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// The runtime's plan of one attempt.
    pub fn attempt_plan(&self, attempt: &PlannedAttempt) -> AttemptPlan<'r> {
        AttemptPlan::new(
            self.repository,
            &self.problems[attempt.problem as usize],
            &self.datasets[attempt.dataset as usize],
            &self.implementations[attempt.implementation as usize],
            attempt.dataset_seed,
            attempt.implementation_seed,
        )
        .expect("planned names are checked")
    }

    /// The inputs of one attempt as `campaign.json` lists them.
    pub fn entry(&self, attempt: &PlannedAttempt) -> PlanEntry {
        PlanEntry {
            id: attempt.id.clone(),
            problem: self.definition.problems[attempt.problem as usize].clone(),
            dataset: self.definition.datasets[attempt.dataset as usize].clone(),
            dataset_seed: attempt.dataset_seed,
            dataset_key: self.keys[attempt.key as usize].key,
            implementation: self.definition.implementations[attempt.implementation as usize].clone(),
            implementation_seed: attempt.implementation_seed,
            repetition: SafeUint::try_from(attempt.repetition).unwrap_or(SafeUint::MAX),
        }
    }
}

/// Marks each attempt whose id an earlier one of `attempts` has as shared with the first.
fn share_twins(attempts: &mut [PlannedAttempt]) {
    let mut first: IdMap<'_, u32> = id_map(attempts.len());
    let mut shared = Vec::new();
    for (index, attempt) in attempts.iter().enumerate() {
        let earlier = *first.entry(attempt.id.as_str()).or_insert(index as u32);
        if earlier != index as u32 {
            shared.push((index, earlier));
        }
    }
    for (index, earlier) in shared {
        attempts[index].shared_with = Some(earlier);
    }
}
