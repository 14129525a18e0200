//! `POST /console/logout` (`csrf_token`): ends the session and forgets the cookie; 303 to the
//! sign-in page.

use actix_web::http::header;
use actix_web::{HttpResponse, web};

use crate::ConsoleState;
use crate::cookies;
use crate::error::ConsoleError;
use crate::guard::CheckedForm;
use crate::urls;

pub async fn submit(
    state: web::Data<ConsoleState>,
    checked: CheckedForm,
) -> Result<HttpResponse, ConsoleError> {
    state.sessions.sign_out(&checked.owner.token).await?;
    Ok(HttpResponse::SeeOther()
        .insert_header((header::LOCATION, urls::LOGIN))
        .cookie(cookies::removal(state.settings.https()))
        .finish())
}
