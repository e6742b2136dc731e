//! Audit exports: CSV (RFC 4180) and JSON lines.
use super::model::AuditEvent;
use crate::clock::rfc3339;

/// CSV header of [`to_csv`].
const CSV_HEADER: &str = "id,time,realm,actor,action,target,outcome,request_id,client_ip,details\n";

fn csv_field(s: &str) -> String {
    // Quote always; double embedded quotes. A leading formula character is neutralised so the
    // export cannot inject formulas into spreadsheets.
    let s = if s.starts_with(['=', '+', '-', '@']) {
        format!("'{s}")
    } else {
        s.to_owned()
    };
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// Renders events as CSV (RFC 4180, header row first).
pub fn to_csv(events: &[AuditEvent]) -> String {
    let mut out = String::from(CSV_HEADER);
    for e in events {
        let row = [
            e.id.to_string(),
            rfc3339(e.occurred_at),
            e.realm.clone(),
            e.actor.clone(),
            e.action.clone(),
            e.target.clone(),
            e.outcome.as_str().to_owned(),
            e.request_id.clone().unwrap_or_default(),
            e.client_ip.clone().unwrap_or_default(),
            e.details.to_string(),
        ];
        out.push_str(
            &row.iter()
                .map(|f| csv_field(f))
                .collect::<Vec<_>>()
                .join(","),
        );
        out.push('\n');
    }
    out
}

/// Renders events as JSON lines, one object per line, with an RFC 3339 `time` field.
pub fn to_json_lines(events: &[AuditEvent]) -> String {
    let mut out = String::new();
    for e in events {
        let line = serde_json::json!({
            "id": e.id,
            "time": rfc3339(e.occurred_at),
            "realm": e.realm,
            "actor": e.actor,
            "action": e.action,
            "target": e.target,
            "outcome": e.outcome,
            "request_id": e.request_id,
            "client_ip": e.client_ip,
            "details": e.details,
        });
        out.push_str(&line.to_string());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::Outcome;

    fn event() -> AuditEvent {
        AuditEvent {
            id: 7,
            realm: "default".into(),
            occurred_at: 0,
            actor: "ada@example.com".into(),
            action: "user.create".into(),
            target: "=cmd|\"x\"".into(),
            outcome: Outcome::Success,
            request_id: Some("req-1".into()),
            client_ip: None,
            details: serde_json::json!({"role": "admin"}),
        }
    }

    #[test]
    fn csv_quotes_and_neutralises_formulas() {
        let csv = to_csv(&[event()]);
        let mut lines = csv.lines();
        assert_eq!(lines.next(), Some(CSV_HEADER.trim_end()));
        let row = lines.next().expect("row");
        assert!(row.starts_with("\"7\",\"1970-01-01T00:00:00Z\",\"default\""));
        assert!(row.contains("\"'=cmd|\"\"x\"\"\""));
    }

    #[test]
    fn json_lines_parse_back() {
        let out = to_json_lines(&[event(), event()]);
        let parsed: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect();
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[0]["outcome"], "success");
        assert_eq!(parsed[0]["time"], "1970-01-01T00:00:00Z");
    }
}
