//! The forms of a client's contact values that an integration may write (issue 35): e-mail,
//! phone, birth date and billing country.

use crate::text::fold_case;

pub const MAX_EMAIL_CHARS: usize = 254;
pub const MAX_PHONE_CHARS: usize = 32;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be an e-mail address such as name@example.com, of at most 254 characters")]
pub struct InvalidEmail;

/// An e-mail address as a person types it, trimmed: one `@` between a non-empty local part
/// and a domain of dot-separated labels, no white space or control character. Its case is
/// kept; its uniqueness is judged on [`email_key`].
pub fn email(raw: &str) -> Result<String, InvalidEmail> {
    let text = raw.trim();
    if text.chars().count() > MAX_EMAIL_CHARS
        || text
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == ',' || c == ';')
    {
        return Err(InvalidEmail);
    }
    let (local, domain) = text.split_once('@').ok_or(InvalidEmail)?;
    let domain_ok = domain.contains('.')
        && !domain.contains('@')
        && domain.split('.').all(|label| !label.is_empty());
    if local.is_empty() || local.chars().count() > 64 || !domain_ok {
        return Err(InvalidEmail);
    }
    Ok(text.to_owned())
}

/// What two e-mails that are one address have in common: `Ana@Example.com` and
/// `ana@example.COM` are one client's. Stored beside the client, so that the shop's e-mails
/// are unique without regard to case (the same fold as search, `text::fold_case`).
pub fn email_key(email: &str) -> String {
    fold_case(email.trim())
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "must be a phone number of at most 32 characters: digits, spaces and + . - ( ) /, with at least 4 digits"
)]
pub struct InvalidPhone;

/// A phone number, stored as given (trimmed): whatever separators the integration uses, the
/// search finds it by its digits (`normalize_phone`).
pub fn phone(raw: &str) -> Result<String, InvalidPhone> {
    let text = raw.trim();
    let allowed = text
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, ' ' | '+' | '.' | '-' | '(' | ')' | '/'));
    let digits = text.chars().filter(char::is_ascii_digit).count();
    if !allowed || digits < 4 || text.chars().count() > MAX_PHONE_CHARS {
        return Err(InvalidPhone);
    }
    Ok(text.to_owned())
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be a date written YYYY-MM-DD, between 1900-01-01 and 2099-12-31")]
pub struct InvalidBirthDate;

/// A calendar day, `YYYY-MM-DD` (as v1 shows it).
pub fn birth_date(raw: &str) -> Result<String, InvalidBirthDate> {
    let date = crate::day::parse_day(raw).ok_or(InvalidBirthDate)?;
    if !(1900..=2099).contains(&date.year()) {
        return Err(InvalidBirthDate);
    }
    Ok(raw.to_owned())
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be an ISO 3166-1 alpha-2 country code, such as FR")]
pub struct InvalidCountry;

/// Two letters, stored in upper case (`fr` is `FR`).
pub fn country(raw: &str) -> Result<String, InvalidCountry> {
    let text = raw.trim();
    if text.len() == 2 && text.bytes().all(|b| b.is_ascii_alphabetic()) {
        Ok(text.to_ascii_uppercase())
    } else {
        Err(InvalidCountry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e_mails_have_a_local_part_and_a_dotted_domain() {
        assert_eq!(email(" Ana@Example.com "), Ok("Ana@Example.com".to_owned()));
        assert!(email("ana+shop@mail.example.fr").is_ok());
        for bad in [
            "ana",
            "@example.com",
            "ana@",
            "ana@example",
            "ana@example..com",
            "ana@.com",
            "a na@example.com",
            "ana@ex@ample.com",
            "ana@example.com, bob@example.com",
        ] {
            assert_eq!(email(bad), Err(InvalidEmail), "{bad}");
        }
        let longest = format!("{}@{}.com", "a".repeat(64), "b".repeat(185));
        assert_eq!(longest.len(), 254);
        assert!(email(&longest).is_ok());
        let too_long = format!("{}@{}.com", "a".repeat(64), "b".repeat(186));
        assert_eq!(email(&too_long), Err(InvalidEmail));
    }

    #[test]
    fn one_address_has_one_key_whatever_its_case() {
        assert_eq!(email_key("Ana@Example.COM"), email_key(" ana@example.com"));
        assert_eq!(email_key("ÉLISE@exemple.fr"), "élise@exemple.fr");
    }

    #[test]
    fn phones_keep_their_form() {
        assert_eq!(
            phone(" +33 6 12-34.56.78 "),
            Ok("+33 6 12-34.56.78".to_owned())
        );
        assert!(phone("(0)6/12").is_ok());
        for bad in ["123", "06 12 AB", "+", &"1".repeat(33)] {
            assert_eq!(phone(bad), Err(InvalidPhone), "{bad}");
        }
    }

    #[test]
    fn birth_dates_are_real_days() {
        assert_eq!(birth_date("1988-02-29"), Ok("1988-02-29".to_owned()));
        for bad in [
            "1989-02-29",
            "1988-2-29",
            "29/02/1988",
            "1899-12-31",
            "2100-01-01",
        ] {
            assert_eq!(birth_date(bad), Err(InvalidBirthDate), "{bad}");
        }
    }

    #[test]
    fn countries_are_two_letters_in_upper_case() {
        assert_eq!(country("be"), Ok("BE".to_owned()));
        for bad in ["FRA", "F", "F1", ""] {
            assert_eq!(country(bad), Err(InvalidCountry), "{bad}");
        }
    }
}
