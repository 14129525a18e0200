DROP TABLE console_secrets;
