	// verilator_coverage annotation
	`resetall
	`timescale 1ns / 1ps
	`default_nettype none
	
	// Translation cache: the RTL twin of the model's TranslationCache with LRU
	// replacement (model/nic/translation/translation_cache.hpp), the cache MemoryTranslation
	// keeps of MPT entries and MTT page addresses. ENTRIES lines in sets of
	// WAYS, the set of an entry number its low bits (the model's index % sets).
	//
	// Three request streams and two result streams:
	// - lookup: the value cached for an index (hit) or not (miss); each miss
	//   also leaves on the miss stream, the index a walker must fetch;
	// - fill: the model's insert: a present index takes the new value, else the
	//   first invalid way of its set, else the set's least recently used way;
	// - invalidate: drops an index if present.
	// One operation per cycle, invalidate before fill before lookup when several
	// are offered together: the order the operations are taken in is the order
	// of the model's calls. A lookup is taken only when both its response and a
	// possible miss have room. Hits and fills make their way the most recent.
	//
	// LRU: each line holds its rank in its set, 0 the most recent and WAYS - 1
	// the least. Invalid lines keep their rank, as the model's keep their last
	// use: the ranks order a set by last use exactly as the model's timestamps.
	//
	// Timing: a lookup taken in cycle t offers its response (and its miss) in
	// cycle t + 1; a fill or invalidate taken in cycle t is seen by a lookup
	// taken in cycle t + 1.
	module translation_cache #(
	    parameter int ENTRIES = 64,
	    parameter int WAYS = 4,
	    parameter int INDEX_BITS = 32,
	    parameter int VALUE_BITS = 64,
	    // Test only: 1 evicts way 0 of a full set instead of its LRU way, for the
	    // scoreboard to catch.
	    parameter int TEST_FAULT = 0
	) (
 312389	    input wire clk_i,
 000019	    input wire rst_ni,
	
 054254	    input  wire                  s_lookup_valid_i,
 085175	    output logic                 s_lookup_ready_o,
 2027194	    input  wire [INDEX_BITS-1:0] s_lookup_index_i,
	
 056618	    output logic                  m_lookup_valid_o,
 057441	    input  wire                   m_lookup_ready_i,
 016982	    output logic                  m_lookup_hit_o,
 676991	    output logic [VALUE_BITS-1:0] m_lookup_value_o,  // zero on a miss
	
 043656	    output logic                  m_miss_valid_o,
 057511	    input  wire                   m_miss_ready_i,
 512565	    output logic [INDEX_BITS-1:0] m_miss_index_o,
	
 059866	    input  wire                  s_fill_valid_i,
 008719	    output logic                 s_fill_ready_o,
 2451809	    input  wire [INDEX_BITS-1:0] s_fill_index_i,
 4973486	    input  wire [VALUE_BITS-1:0] s_fill_value_i,
	
 008700	    input  wire                  s_invalidate_valid_i,
 000019	    output logic                 s_invalidate_ready_o,
 2501157	    input  wire [INDEX_BITS-1:0] s_invalidate_index_i,
	
	    // The model's peek: the value cached for an index, at once, neither
	    // counted nor touching the LRU order (a second, combinational read port).
 2000072	    input  wire  [INDEX_BITS-1:0] probe_index_i,
 068042	    output logic                  probe_hit_o,
 3368224	    output logic [VALUE_BITS-1:0] probe_value_o
	);
	
	  localparam int Sets = WAYS > 0 ? ENTRIES / WAYS : 1;
	  localparam int SetBits = Sets > 1 ? $clog2(Sets) : 0;
	  localparam int SetW = Sets > 1 ? SetBits : 1;  // a signal needs one bit
	  localparam int TagBits = INDEX_BITS - SetBits;
	  localparam int WayW = WAYS > 1 ? $clog2(WAYS) : 1;
	
	  if (ENTRIES < 1 || WAYS < 1 || ENTRIES % WAYS != 0) begin : g_bad_geometry
	    $error("translation_cache: ENTRIES must be a non-zero multiple of WAYS");
	  end
	  if ((Sets & (Sets - 1)) != 0) begin : g_bad_sets
	    $error("translation_cache: ENTRIES / WAYS (the sets) must be a power of two");
	  end
	  if (INDEX_BITS < 1 || INDEX_BITS > 64 || TagBits < 1) begin : g_bad_index_bits
	    $error("translation_cache: INDEX_BITS must be 1 to 64 and wider than the set number");
	  end
	  if (VALUE_BITS < 1) begin : g_bad_value_bits
	    $error("translation_cache: VALUE_BITS must be at least 1");
	  end
	  if (TEST_FAULT != 0 && TEST_FAULT != 1) begin : g_bad_test_fault
	    $error("translation_cache: TEST_FAULT must be 0 or 1");
	  end
	
	  // Line l is way l % WAYS of set l / WAYS, as the model lays its lines out.
	  // Valid bits and LRU ranks are flip-flops (a reset clears them all at
	  // once); tags and values are arrays addressed by line (a register file:
	  // with the probe, 2 x WAYS asynchronous reads). Only the lines of the one
	  // set an operation names are read and written, so a simulator's work per
	  // cycle follows WAYS, not ENTRIES. A line is set x WAYS + way; with one
	  // set LineW'(WAYS) may wrap to 0, harmless as the set is then 0.
	  localparam int LineW = ENTRIES > 1 ? $clog2(ENTRIES) : 1;
 007341	  logic [ENTRIES-1:0] valid_q;
 115634	  logic [ENTRIES*WayW-1:0] rank_q;
 172749	  logic [TagBits-1:0] tag_q[ENTRIES];
 540042	  logic [VALUE_BITS-1:0] value_q[ENTRIES];
	
	  // The operation taken this cycle, if any.
 008700	  logic do_invalidate, do_fill, do_lookup;
 060232	  verilator_coverage: (next point on previous line)

 071396	  verilator_coverage: (next point on previous line)

 2115456	  logic [INDEX_BITS-1:0] op_index;
 411597	  logic [SetW-1:0] op_set;
 1703859	  logic [TagBits-1:0] op_tag;
	
	  // Its set, way by way.
 2672627	  logic [WAYS*LineW-1:0] way_line;  // the line of each way of op_set
 082507	  logic [WAYS-1:0] way_valid, way_match;
 109684	  verilator_coverage: (next point on previous line)

 1314196	  logic [WAYS*WayW-1:0] way_rank;
 23338052	  logic [WAYS*VALUE_BITS-1:0] way_value;
	
 095646	  logic hit;
 3335211	  logic [VALUE_BITS-1:0] hit_value;
 121397	  logic [WayW-1:0] hit_way, first_invalid_way, lru_way, fill_way, touched_way;
 061272	  verilator_coverage: (next point on previous line)

 183841	  verilator_coverage: (next point on previous line)

 152441	  verilator_coverage: (next point on previous line)

 105143	  verilator_coverage: (next point on previous line)

 564038	  logic [LineW-1:0] fill_line;
 029696	  logic any_invalid, touch;
 069518	  verilator_coverage: (next point on previous line)

 904472	  logic [WAYS*WayW-1:0] touched_rank;  // the set's ranks after the touch
	
	  // The probe's set, way by way.
 426293	  logic [SetW-1:0] probe_set;
 1573779	  logic [TagBits-1:0] probe_tag;
 426330	  logic [LineW-1:0] probe_line;
	
 937262	  always_comb begin
 468631	    s_invalidate_ready_o = 1'b1;
 468631	    s_fill_ready_o = !s_invalidate_valid_i;
 468631	    s_lookup_ready_o = !s_invalidate_valid_i && !s_fill_valid_i &&
 468631	        (!m_lookup_valid_o || m_lookup_ready_i) && (!m_miss_valid_o || m_miss_ready_i);
 468631	    do_invalidate = s_invalidate_valid_i;
 468631	    do_fill = s_fill_valid_i && s_fill_ready_o;
 468631	    do_lookup = s_lookup_valid_i && s_lookup_ready_o;
 468631	    op_index = s_invalidate_valid_i ? s_invalidate_index_i
 468631	             : s_fill_valid_i ? s_fill_index_i : s_lookup_index_i;
 468631	    op_tag = op_index[INDEX_BITS-1:SetBits];
	  end
	
	  if (Sets > 1) begin : g_set_from_index
	    assign op_set = op_index[SetW-1:0];
	    assign probe_set = probe_index_i[SetW-1:0];
	  end else begin : g_one_set
	    assign op_set = 1'b0;
	    assign probe_set = 1'b0;
	  end
	
	  // Reads the set.
 937262	  always_comb begin
 468631	    for (int w = 0; w < WAYS; w++) begin
 5326640	    verilator_coverage: (next point on previous line)

 2663320	      way_line[w*LineW+:LineW] = LineW'(op_set) * LineW'(WAYS) + LineW'(w);
 2663320	      way_valid[w] = valid_q[way_line[w*LineW+:LineW]];
 2663320	      way_match[w] = way_valid[w] && tag_q[way_line[w*LineW+:LineW]] == op_tag;
 2663320	      way_rank[w*WayW+:WayW] = rank_q[way_line[w*LineW+:LineW]*WayW+:WayW];
 2663320	      way_value[w*VALUE_BITS+:VALUE_BITS] = value_q[way_line[w*LineW+:LineW]];
	    end
	  end
	
 937262	  always_comb begin
 468631	    hit = |way_match;
 468631	    hit_value = '0;
 468631	    hit_way = '0;
 468631	    any_invalid = !(&way_valid);
 468631	    first_invalid_way = '0;
 468631	    lru_way = '0;
 468631	    for (int w = WAYS - 1; w >= 0; w--) begin
 5326640	    verilator_coverage: (next point on previous line)

 2663320	      hit_value = hit_value | ({VALUE_BITS{way_match[w]}} & way_value[w*VALUE_BITS+:VALUE_BITS]);
 218304	      if (way_match[w]) hit_way = WayW'(w);
 2554168	      verilator_coverage: (next point on previous line)

 478200	      if (!way_valid[w]) first_invalid_way = WayW'(w);  // the lowest wins, as in the model
 2424220	      verilator_coverage: (next point on previous line)

 937160	      if (way_rank[w*WayW+:WayW] == WayW'(WAYS - 1)) lru_way = WayW'(w);
 2194740	      verilator_coverage: (next point on previous line)

	    end
 218304	    if (hit) fill_way = hit_way;
 131712	    else if (any_invalid) fill_way = first_invalid_way;
 293623	    verilator_coverage: (next point on previous line)

 293623	    else fill_way = TEST_FAULT == 1 ? '0 : lru_way;
 468631	    fill_line = LineW'(op_set) * LineW'(WAYS) + LineW'(fill_way);
	
	    // A hit and a fill make their way the most recent; the ways more recent
	    // than it move one down.
 468631	    touch = do_fill || (do_lookup && hit);
 468631	    touched_way = do_fill ? fill_way : hit_way;
 468631	    for (int w = 0; w < WAYS; w++) begin
 5326640	    verilator_coverage: (next point on previous line)

 937262	      if (WayW'(w) == touched_way) touched_rank[w*WayW+:WayW] = '0;
 2055884	      else if (way_rank[w*WayW+:WayW] < way_rank[touched_way*WayW+:WayW])
 1166747	      verilator_coverage: (next point on previous line)

 1027942	        touched_rank[w*WayW+:WayW] = way_rank[w*WayW+:WayW] + WayW'(1);
 1166747	      else touched_rank[w*WayW+:WayW] = way_rank[w*WayW+:WayW];
	    end
	  end
	
	  // The probe: a second read port, without side effects.
 937262	  always_comb begin
 468631	    probe_tag = probe_index_i[INDEX_BITS-1:SetBits];
 468631	    probe_hit_o = 1'b0;
 468631	    probe_value_o = '0;
 468631	    for (int w = 0; w < WAYS; w++) begin
 5326640	    verilator_coverage: (next point on previous line)

 2663320	      probe_line = LineW'(probe_set) * LineW'(WAYS) + LineW'(w);
 430968	      if (valid_q[probe_line] && tag_q[probe_line] == probe_tag) begin
 2447836	      verilator_coverage: (next point on previous line)

 215484	        probe_hit_o = 1'b1;
 215484	        probe_value_o = value_q[probe_line];
	      end
	    end
	  end
	
 312408	  always_ff @(posedge clk_i) begin
 000076	    if (!rst_ni) begin
 156166	    verilator_coverage: (next point on previous line)

 000038	      valid_q <= '0;
 000038	      for (int l = 0; l < ENTRIES; l++) rank_q[l*WayW+:WayW] <= WayW'(l % WAYS);
 020160	      verilator_coverage: (next point on previous line)

 000038	      m_lookup_valid_o <= 1'b0;
 000038	      m_miss_valid_o <= 1'b0;
 156166	    end else begin
 213616	      if (m_lookup_ready_i) m_lookup_valid_o <= 1'b0;
 049358	      verilator_coverage: (next point on previous line)

 213372	      if (m_miss_ready_i) m_miss_valid_o <= 1'b0;
 049480	      verilator_coverage: (next point on previous line)

 156166	      for (int w = 0; w < WAYS; w++) begin
 1775164	      verilator_coverage: (next point on previous line)

 002930	        if (do_invalidate && way_match[w]) valid_q[way_line[w*LineW+:LineW]] <= 1'b0;
 886117	        verilator_coverage: (next point on previous line)

 673044	        if (touch) rank_q[way_line[w*LineW+:LineW]*WayW+:WayW] <= touched_rank[w*WayW+:WayW];
 551060	        verilator_coverage: (next point on previous line)

	      end
 083664	      if (do_fill) valid_q[fill_line] <= 1'b1;
 114334	      verilator_coverage: (next point on previous line)

 079154	      if (do_lookup) begin
 116589	      verilator_coverage: (next point on previous line)

 039577	        m_lookup_valid_o <= 1'b1;
 039577	        m_miss_valid_o <= !hit;
	      end
	    end
	  end
	
	  // Data without reset: meaningful only under valid bits.
 312408	  always_ff @(posedge clk_i) begin
 083664	    if (do_fill) begin
 114372	    verilator_coverage: (next point on previous line)

 041832	      tag_q[fill_line] <= op_tag;
 041832	      value_q[fill_line] <= s_fill_value_i;
	    end
 079154	    if (do_lookup) begin
 116627	    verilator_coverage: (next point on previous line)

 039577	      m_lookup_hit_o <= hit;
 039577	      m_lookup_value_o <= hit_value;
 039577	      m_miss_index_o <= s_lookup_index_i;
	    end
	  end
	
	endmodule
	
	`resetall
	
