// SPDX-License-Identifier: GPL-2.0
//! Reads a perf.data with the linux-perf-data crate, a parser independent of
//! perf (samply's), and prints what it saw: event names, features, records
//! per type, samples per event, and whether timestamps ever went backwards
//! in the crate's round-sorted order. Any parse error exits non-zero.
use linux_perf_data::linux_perf_event_reader::EventRecord;
use linux_perf_data::{PerfFileReader, PerfFileRecord};
use std::collections::BTreeMap;

fn main() {
    let path = std::env::args().nth(1).expect("usage: lpd-check FILE");
    if let Err(e) = run(&path) {
        eprintln!("lpd-check: {}: {}", path, e);
        std::process::exit(1);
    }
}

fn run(path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let file = std::fs::File::open(path)?;
    let reader = std::io::BufReader::new(file);
    let PerfFileReader { mut perf_file, mut record_iter } = PerfFileReader::parse_file(reader)?;
    let names: Vec<String> = perf_file
        .event_attributes()
        .iter()
        .map(|a| a.name().unwrap_or("?").to_string())
        .collect();
    println!("events: {}", names.join(","));
    let feats: Vec<String> = perf_file.features().iter().map(|f| format!("{:?}", f)).collect();
    println!("features: {}", feats.join(","));
    if let Some(host) = perf_file.hostname()? {
        println!("hostname: {}", host);
    }
    let mut types: BTreeMap<String, u64> = BTreeMap::new();
    let mut samples: BTreeMap<usize, u64> = BTreeMap::new();
    let (mut last, mut backwards) = (0u64, 0u64);
    while let Some(record) = record_iter.next_record(&mut perf_file)? {
        match record {
            PerfFileRecord::EventRecord { attr_index, record } => {
                *types.entry(format!("{:?}", record.record_type)).or_default() += 1;
                if let Some(t) = record.timestamp() {
                    backwards += (t < last) as u64;
                    last = last.max(t);
                }
                if let EventRecord::Sample(_) = record.parse()? {
                    *samples.entry(attr_index).or_default() += 1;
                }
            }
            PerfFileRecord::UserRecord(record) => {
                *types.entry(format!("{:?}", record.record_type)).or_default() += 1;
                record.parse()?;
            }
        }
    }
    for (t, n) in &types {
        println!("records {}: {}", t, n);
    }
    for (i, n) in &samples {
        println!("samples {}: {}", names.get(*i).map(String::as_str).unwrap_or("?"), n);
    }
    println!("timestamps backwards: {}", backwards);
    Ok(())
}
