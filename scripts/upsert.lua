#!/usr/bin/env sysbench
-- upsert.lua - seed 001's visit recorder as a sysbench load (MariaDB / MySQL).
-- A request records one visit in one transaction (REPEATABLE READ, as the
-- service ran it): the website and the page are upserted with a fresh UUID
-- primary key (INSERT ... ON DUPLICATE KEY UPDATE), read back, the visit
-- inserted, COMMIT. Most requests revisit existing pages of a few websites:
-- each upsert hits the duplicate on the unique key and keeps an exclusive
-- next-key lock on it until COMMIT (MySQL 8 also leaves a gap lock on
-- PRIMARY after the partial rollback; MariaDB 10.11 does not), so requests
-- for other pages of the same website wait for it, and first visits (a new
-- domain sorting just below an existing one) wait to insert into its gap.
--   --fix=on    the seed's fix: read first (plain SELECT by the unique key),
--               upsert only when the row is missing or its values changed
-- sysbench --mysql-ignore-errors=1213,1205 upsert.lua prepare|run|cleanup
local ffi = require("ffi")
ffi.cdef [[
int usleep(unsigned int usec);
typedef struct { long tv_sec; long tv_usec; } dbtop_timeval;
int gettimeofday(dbtop_timeval *tv, void *tz);
]]
local tv = ffi.new("dbtop_timeval")

sysbench.cmdline.options = {
    fix = {"read first, upsert only when missing or changed (the seed's fix)", false},
    sites = {"websites", 2},
    pages = {"pages per website", 50},
    work_us = {"the service's own work inside the transaction (idle in it), microseconds", 3000},
    new_pct = {"first visits (a new website and page), percent of requests", 25},
}

local function site_of(s) return string.format("site%d.example", s) end
local function url_of(s, p) return string.format("https://site%d.example/posts/%d", s, p) end

function prepare()
    local con = sysbench.sql.driver():connect()
    con:query("DROP TABLE IF EXISTS visit, page, website")
    con:query([[CREATE TABLE website (
        id CHAR(36) NOT NULL PRIMARY KEY,
        domain VARCHAR(100) NOT NULL,
        favicon_url VARCHAR(200) NOT NULL,
        UNIQUE KEY uk_website_domain (domain)) ENGINE=InnoDB]])
    con:query([[CREATE TABLE page (
        id CHAR(36) NOT NULL PRIMARY KEY,
        website_id CHAR(36) NOT NULL,
        url VARCHAR(200) NOT NULL,
        title VARCHAR(200) NOT NULL,
        UNIQUE KEY uk_page_url (url)) ENGINE=InnoDB]])
    con:query([[CREATE TABLE visit (
        id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
        page_id CHAR(36) NOT NULL,
        user_id INT NOT NULL,
        visited_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP) ENGINE=InnoDB]])
    for s = 1, sysbench.opt.sites do
        con:query(string.format("INSERT INTO website VALUES (UUID(), '%s', 'https://%s/favicon.ico')",
            site_of(s), site_of(s)))
        for p = 1, sysbench.opt.pages do
            con:query(string.format("INSERT INTO page SELECT UUID(), id, '%s', 'post %d' FROM website WHERE domain = '%s'",
                url_of(s, p), p, site_of(s)))
        end
    end
end

function cleanup()
    sysbench.sql.driver():connect():query("DROP TABLE IF EXISTS visit, page, website")
end

function thread_init()
    con = sysbench.sql.driver():connect()
end

function thread_done()
    con:disconnect()
end

-- the first row of q, or nil
local function first(q)
    local rs = con:query(q)
    return rs and rs:fetch_row()
end

-- the first value of the first row of q, or nil
local function one(q)
    local row = first(q)
    return row and row[1]
end

function event()
    local s = math.random(sysbench.opt.sites)
    local p = math.random(sysbench.opt.pages)
    local domain, url = site_of(s), url_of(s, p)
    if math.random(100) <= sysbench.opt.new_pct then
        -- a first visit: 'siteN-<now in us>.example' sorts above the earlier
        -- ones and just below 'siteN.example', into the gap its upsert locks
        ffi.C.gettimeofday(tv, nil)
        domain = string.format("site%d-%d%06d.example", s, tonumber(tv.tv_sec), tonumber(tv.tv_usec))
        url = "https://" .. domain .. "/"
    end
    local favicon, title = "https://" .. domain .. "/favicon.ico", "post " .. p
    local wid, pid
    con:query("BEGIN")
    if sysbench.opt.fix then
        local row = first(string.format("SELECT id, favicon_url FROM website WHERE domain = '%s'", domain))
        wid = row and row[2] == favicon and row[1] or nil
    end
    if not wid then
        con:query(string.format("INSERT INTO website (id, domain, favicon_url) VALUES (UUID(), '%s', '%s') " ..
            "ON DUPLICATE KEY UPDATE favicon_url = VALUES(favicon_url)", domain, favicon))
        wid = one(string.format("SELECT id FROM website WHERE domain = '%s'", domain))
    end
    if sysbench.opt.fix then
        local row = first(string.format("SELECT id, title FROM page WHERE url = '%s'", url))
        pid = row and row[2] == title and row[1] or nil
    end
    if not pid then
        con:query(string.format("INSERT INTO page (id, website_id, url, title) VALUES (UUID(), '%s', '%s', '%s') " ..
            "ON DUPLICATE KEY UPDATE title = VALUES(title)", wid, url, title))
        pid = one(string.format("SELECT id FROM page WHERE url = '%s'", url))
    end
    if sysbench.opt.work_us > 0 then
        ffi.C.usleep(sysbench.opt.work_us)
    end
    con:query(string.format("INSERT INTO visit (page_id, user_id) VALUES ('%s', %d)", pid, math.random(1000)))
    con:query("COMMIT")
end
