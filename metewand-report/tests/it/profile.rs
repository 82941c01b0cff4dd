//! Performance profiles on hand-made data, whose ratios are worked out by hand in the comments.

use metewand_report::Profile;

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|name| (*name).to_owned()).collect()
}

#[test]
fn ratios_and_rho_follow_dolan_and_more() {
    // Three implementations on four instances; one attempt each (None: not reached or failed).
    //            i0         i1        i2          i3
    // fast       1.0        2.0       None        4.0
    // slow       2.0        2.0       3.0         None
    // never      None       None      None        None
    // Best per instance: 1, 2, 3, 4. Ratios: fast 1, 1, inf, 1; slow 2, 1, 1, inf; never inf everywhere.
    let times = vec![
        vec![vec![Some(1.0)], vec![Some(2.0)], vec![None], vec![Some(4.0)]],
        vec![vec![Some(2.0)], vec![Some(2.0)], vec![Some(3.0)], vec![None]],
        vec![vec![None], vec![None], vec![None], vec![None]],
    ];
    let profile = Profile::new(&names(&["fast", "slow", "never"]), &times);
    assert_eq!(profile.instances, 4);
    let [fast, slow, never] = &profile.series[..] else { panic!("three series") };
    assert_eq!(fast.ratios, vec![Some(1.0), Some(1.0), Some(1.0), None]);
    assert_eq!(slow.ratios, vec![Some(1.0), Some(1.0), Some(2.0), None]);
    assert_eq!(never.ratios, vec![None; 4]);
    assert_eq!(fast.rho(1.0), 0.75);
    assert_eq!(slow.rho(1.0), 0.5);
    assert_eq!(slow.rho(1.99), 0.5);
    assert_eq!(slow.rho(2.0), 0.75);
    assert_eq!(slow.rho(1e9), 0.75, "the limit is the share reached at all");
    assert_eq!(never.rho(1e9), 0.0);
    assert_eq!(slow.steps(), vec![(1.0, 0.5), (2.0, 0.75)]);
    assert_eq!(profile.max_ratio(), 2.0);
}

#[test]
fn an_instance_time_is_the_median_with_failures_infinite() {
    // a: [1, 3, None] has median 3 (the infinite value sorts last); b: [2, None, None] has an infinite median;
    // c: [4, 4] has median 4. On the second instance a's attempts [5, 7] have median 6 and c's [3] 3.
    let times = vec![
        vec![vec![Some(1.0), Some(3.0), None], vec![Some(5.0), Some(7.0)]],
        vec![vec![Some(2.0), None, None], vec![]],
        vec![vec![Some(4.0), Some(4.0)], vec![Some(3.0)]],
    ];
    let profile = Profile::new(&names(&["a", "b", "c"]), &times);
    assert_eq!(profile.series[0].ratios, vec![Some(1.0), Some(2.0)]);
    assert_eq!(profile.series[1].ratios, vec![None, None], "no attempt on an instance counts as infinite");
    assert_eq!(profile.series[2].ratios, vec![Some(1.0), Some(4.0 / 3.0)]);
}
