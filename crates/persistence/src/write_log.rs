//! The line each API v2 write of a product or a client adds to the console's activity
//! (`api_writes`), in the write's own transaction.

use diesel_async::RunQueryDsl;

use crate::database::impl_for_each_backend;
use crate::error::DbError;
use crate::rows::{ApiWrite, ApiWriteRow};
use crate::schema::api_writes;
use crate::sql::kept_prepared::KeptPrepared;

pub(crate) trait WriteLog {
    fn log_write(
        &mut self,
        write: &ApiWrite<'_>,
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

impl_for_each_backend! {
    impl WriteLog {
        async fn log_write(&mut self, write: &ApiWrite<'_>) -> Result<(), DbError> {
            let row = ApiWriteRow::of(write)?;
            KeptPrepared(diesel::insert_into(api_writes::table).values(&row))
                .execute(self)
                .await?;
            Ok(())
        }
    }
}
