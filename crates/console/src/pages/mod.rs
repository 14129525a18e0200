//! One module per page: its handlers (one per method) and its template's data.

pub mod activity;
pub mod api_writes;
pub mod dashboard;
pub mod keys;
pub mod login;
pub mod logout;
pub mod revoke;
pub mod stock;
pub mod webhook;
pub mod webhook_delete;
pub mod webhooks;
