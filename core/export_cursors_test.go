package weida

// CursorsTraffic reports what arrived on c's report stream so far: the
// records and their bytes (the head excluded). The benchmarks measure the
// cost of a report with it; it is no part of the API.
func CursorsTraffic(c *Cursors) (records, bytes uint64) {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	return c.f.records, c.f.bytes
}

// CursorsReportID is the report id c's transfer carried, for the
// benchmarks' head size.
func CursorsReportID(c *Cursors) uint64 {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	return c.f.id
}
