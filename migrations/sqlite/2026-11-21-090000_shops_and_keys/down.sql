DROP TABLE api_keys;
DROP TABLE shops;
