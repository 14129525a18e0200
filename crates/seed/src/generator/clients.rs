//! Clients: names, e-mails and phones written the ways shops store them, billing details,
//! loyalty points across the three tiers.

use shop_domain::Timestamp;
use shop_domain::client::{Billing, Client, ClientLoyalty};
use shop_domain::id::ClientId;

use super::ids::SeedIds;
use super::random::{Draw, Timeline};
use super::vocabulary::{
    CITIES, COMPANY_FORMS, FIRST_NAMES, LAST_NAMES, MAIL_DOMAINS, STREETS, ascii_fold,
};
use super::{DAY_MILLIS, GeneratorError, checked};

/// Makes clients in index order, from the clients' own random stream.
pub struct ClientMaker {
    ids: SeedIds,
    /// When each client was created: orders pick only clients that exist at their time.
    pub timeline: Timeline,
    end: Timestamp,
}

impl ClientMaker {
    /// Clients are created one after another over `timeline`; none is updated after `end`.
    pub fn new(ids: SeedIds, timeline: Timeline, end: Timestamp) -> Self {
        Self { ids, timeline, end }
    }

    pub fn client(&self, i: usize, draw: &mut Draw) -> Result<Client, GeneratorError> {
        let first = *draw.pick(FIRST_NAMES);
        let last = *draw.pick(LAST_NAMES);
        let created_at = self.timeline.moment(i, draw);
        let (country, city, postal_code) = *draw.pick(CITIES);
        let company = draw.percent(7);
        let lifetime = match draw.weighted(&[(0, 60), (1, 30), (2, 10)]) {
            0 => draw.between(0, 499),
            1 => draw.between(500, 1_999),
            _ => draw.between(2_000, 8_000),
        };
        let points = draw.between(0, lifetime.min(1_500));
        let mut tags = Vec::new();
        if draw.percent(5) {
            tags.push("vip".to_owned());
        }
        if company {
            tags.push("pro".to_owned());
        }
        let email = draw.percent(85).then(|| {
            format!(
                "{}.{}{i}@{}",
                ascii_fold(first),
                ascii_fold(last),
                draw.pick(MAIL_DOMAINS)
            )
        });
        Ok(Client {
            id: checked(ClientId::parse(self.ids.client(i)))?,
            name: format!("{first} {last}"),
            display_name: draw.percent(25).then(|| first.to_owned()),
            phone: draw.percent(88).then(|| phone(draw)),
            receipt_by_email: email.is_some() && draw.percent(60),
            email,
            billing: Billing {
                company: company.then(|| format!("{last} {}", draw.pick(COMPANY_FORMS))),
                vat_number: company.then(|| format!("FR{:011}", draw.between(0, 99_999_999_999))),
                address: draw
                    .percent(80)
                    .then(|| format!("{} {}", draw.between(1, 180), draw.pick(STREETS))),
                city: Some(city.to_owned()),
                postal_code: Some(postal_code.to_owned()),
                country: country.to_owned(),
            },
            birth_date: draw.percent(65).then(|| {
                format!(
                    "{}-{:02}-{:02}",
                    draw.between(1945, 2006),
                    draw.between(1, 12),
                    draw.between(1, 28)
                )
            }),
            loyalty: ClientLoyalty {
                points,
                expires_at: (points > 0)
                    .then(|| self.end.plus_millis(draw.between(30, 400) * DAY_MILLIS)),
                points_lifetime: lifetime,
                points_all_time: lifetime + draw.between(0, 300),
                // Silver (500 points) is the first tier one achieves.
                tier_achieved_at: (lifetime >= 500).then(|| draw.moment(created_at, self.end)),
            },
            tags,
            updated_at: draw.moment(created_at, self.end),
            created_at,
        })
    }
}

/// A French number, mobile mostly, written one of the ways shops store them.
fn phone(draw: &mut Draw) -> String {
    let lead = draw.weighted(&[("6", 55), ("7", 30), ("1", 5), ("2", 5), ("5", 5)]);
    let rest = format!("{:08}", draw.between(0, 99_999_999));
    let pairs = [&rest[0..2], &rest[2..4], &rest[4..6], &rest[6..8]];
    match draw.index(4) {
        0 => format!("0{lead} {}", pairs.join(" ")),
        1 => format!("+33{lead}{rest}"),
        2 => format!("0{lead}.{}", pairs.join(".")),
        _ => format!("0{lead}{rest}"),
    }
}

#[cfg(test)]
mod tests {
    use shop_domain::client::normalize_phone;

    use super::super::random::Stream;
    use super::*;

    #[test]
    fn every_phone_normalises_to_nine_digits() {
        let mut draw = Draw::new(3, Stream::Clients);
        for _ in 0..200 {
            let written = phone(&mut draw);
            let digits = normalize_phone(&written);
            assert_eq!(digits.len(), 9, "{written}");
            assert!(digits.bytes().all(|b| b.is_ascii_digit()), "{written}");
        }
    }
}
