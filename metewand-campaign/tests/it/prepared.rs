//! A prepared campaign: the checks before anything is written (a folder inside a worker's source, weaker
//! confinement than required), what it lets pass said as warnings, and its folder hidden from every worker of it.

use std::fs;
use std::path::PathBuf;

use metewand_campaign::{
    Axes, CampaignPlan, PrepareError, PrepareWarning, PreparedCampaign, Refusals, RunConfig, Silent,
};
use metewand_protocol::generated::attempt_record::SessionMode;
use metewand_runtime::preflight::PreflightError;
use metewand_runtime::session::ProcessIsolation;
use metewand_testkit::Requirement;

use crate::{Bench, records};

const LENIENT: Refusals = Refusals { weaker_confinement: false, unenforced_limits: false };

#[test]
fn a_campaign_folder_inside_a_workers_source_is_refused_before_anything_is_written() {
    let bench = Bench::new("");
    let repository = bench.load();
    let plan = CampaignPlan::new(&repository, Some("main"), &Axes::default()).unwrap();
    let folder = bench.repo().join("src-solver/campaign");
    let mut warnings = 0;
    let error =
        PreparedCampaign::new(plan, bench.state(), folder.clone(), ProcessIsolation::default(), LENIENT, &mut |_| {
            warnings += 1;
        })
        .unwrap_err();
    let PrepareError::Preflight(PreflightError::InsideSource { flag, worker, .. }) = &error else {
        panic!("{error:?}");
    };
    assert_eq!((*flag, worker.as_str()), ("--out", "solver"));
    assert!(error.to_string().starts_with(&format!("--out {} is inside the source folder", folder.display())));
    assert_eq!(warnings, 0, "nothing was checked after the refusal");
    assert!(!folder.exists() && !bench.state().exists(), "nothing was created");
}

#[test]
fn weaker_confinement_is_a_warning_unless_refused() {
    let bench = Bench::new("");
    let repository = bench.load();
    let prepare = |refusals: Refusals, warnings: &mut Vec<String>| {
        let plan = CampaignPlan::new(&repository, Some("main"), &Axes::default()).unwrap();
        let mut warn = |warning: PrepareWarning<'_>| match warning {
            PrepareWarning::WeakerConfinement(missing) => warnings.push(missing.join(", ")),
            PrepareWarning::UnenforcedLimit(limit) => panic!("the fixture sets no limit: {limit:?}"),
        };
        PreparedCampaign::new(plan, bench.state(), bench.folder("out"), ProcessIsolation::Sweep, refusals, &mut warn)
    };
    let mut warnings = Vec::new();
    let prepared = prepare(LENIENT, &mut warnings).unwrap();
    assert_eq!(warnings.len(), 1, "one warning for the whole campaign: {warnings:?}");
    assert!(warnings[0].contains("no PID namespace"), "{warnings:?}");
    assert_eq!(prepared.options().hidden, [bench.folder("out")], "the campaign folder is hidden from its workers");

    let mut warnings = Vec::new();
    let error = prepare(Refusals { weaker_confinement: true, ..LENIENT }, &mut warnings).unwrap_err();
    assert!(
        matches!(&error, PrepareError::Preflight(PreflightError::ConfinementRequired { missing })
            if missing.iter().any(|weakness| weakness.starts_with("no PID namespace"))),
        "{error:?}"
    );
    assert!(warnings.is_empty(), "a refusal is not also a warning: {warnings:?}");
    assert!(!bench.folder("out").exists() && !bench.state().exists(), "nothing was created");
}

/// The implementation of every attempt tries to read the campaign's own `campaign.json`: in its private view the
/// campaign folder is empty, the file absent (ENOENT). The folder lies outside `/tmp`, which every worker's view
/// hides anyway, so only the campaign's own rule hides it.
#[test]
fn a_campaigns_workers_cannot_see_its_folder() {
    let outside_tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let folder: PathBuf = outside_tmp.path().join("campaign");
    let target = folder.join("campaign.json");
    let bench = Bench::new(&format!(r#""--attack", "read@execute", "--target", "{}""#, target.display()));
    let repository = bench.load();
    let plan = CampaignPlan::new(&repository, Some("main"), &Axes::default()).unwrap();
    let prepared =
        PreparedCampaign::new(plan, bench.state(), folder.clone(), ProcessIsolation::default(), LENIENT, &mut |_| {})
            .unwrap();
    let environment = metewand_campaign::environment::capture(&repository);
    let programs = metewand_campaign::changes::ProgramCheck::new(prepared.plan(), &environment);
    let campaign = prepared.open(1, environment).unwrap();
    assert!(target.is_file(), "the folder took the plan before any attempt ran");
    let config = RunConfig {
        jobs: 1.try_into().unwrap(),
        cpus: None,
        retry_failed: false,
        programs,
        rerun_changed: false,
        sessions: SessionMode::Fresh,
        warmup: 0,
        refused: Vec::new(),
        ahead: false,
        options: prepared.options().clone(),
    };
    let summary = metewand_campaign::run(prepared.plan(), &campaign, &config, &Silent).unwrap();
    assert_eq!(summary.ran, 4, "{summary:?}");
    let line = format!("test-worker: attack read {}: ", target.display());
    for (id, record) in records(&folder) {
        assert_eq!(record["outcome"], "reached", "{id}: {record}");
        let log = fs::read_to_string(folder.join("attempts").join(&id).join("logs/implementation.log")).unwrap();
        let outcome = log.lines().find_map(|text| text.strip_prefix(&line)).unwrap_or_else(|| panic!("{log}"));
        if record["implementation"]["confinement"]["mounts"] == "private" {
            assert_eq!(outcome, "errno 2", "{id}: {log}");
        } else {
            assert_eq!(outcome, "ok", "{id}: without a private view the host's files show: {log}");
            metewand_testkit::skip(Requirement::PidNamespace, "the workers had no private view to hide the folder");
            return;
        }
    }
}
