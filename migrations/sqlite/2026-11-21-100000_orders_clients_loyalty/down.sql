DROP TABLE spins;
DROP TABLE lottery_tickets;
DROP TABLE order_items;
DROP TABLE orders;
DROP TABLE clients;
