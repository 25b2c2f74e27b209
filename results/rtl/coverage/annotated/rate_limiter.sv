	// verilator_coverage annotation
	`resetall
	`timescale 1ns / 1ps
	`default_nettype none
	
	// DCQCN rate limiter: the RTL twin of the model's RateLimiter
	// (model/nic/congestion/rate_limiter.hpp), the reaction point's state for
	// 2^SLOT_BITS QPs, one slot each, and one operation at a time on one slot:
	// - open: the slot starts a new QP (line rate, initial alpha, not active);
	// - look: the timer events due by now (ReactionPoint::advance);
	// - cnp: ReactionPoint::cnp, which advances first;
	// - sent: ReactionPoint::sent, then, while still active, the next-send time
	//   moves to max(now, next send) + the packet's wire bytes at the rate.
	// The arithmetic is ReactionPoint's (model/nic/congestion/dcqcn.cpp) bit for
	// bit: rates in whole bit/s, alpha in 2^-20ths, times in ps compared modulo
	// 2^64, every division rounding down but the pacing time's, which rounds up.
	// Each width is what its configuration key allows (congestion_config.cpp,
	// link_config.cpp), so no port bit is there that the keys cannot reach: rates to
	// 10^6 Gbit/s (50 bits), steps and minimum rates to 10^6 Mbit/s (40),
	// periods to 10^6 us in ps (40), B to 2^40 bytes (41), F to 2^20 (21).
	//
	// One event per cycle, in the model's order: alpha periods, then
	// rate-increase timer events, then the operation; a sent's byte-counter
	// events one per cycle; one shared 50 x 32 multiplier and one radix-16
	// divider (the pacing time, and a firmware cut's floor(RC x percent / 100)).
	module rate_limiter #(
	    parameter int SLOT_BITS = 4,
	    // Test only: 1 makes the rate increase round up, RC = (RT + RC + 1) / 2,
	    // for the scoreboard to catch.
	    parameter int TEST_FAULT = 0
	) (
 2838147	    input wire clk_i,
 000045	    input wire rst_ni,
	
	    // Configuration (DcqcnParameters), held steady while the block runs.
 000045	    input wire [ 1:0] cfg_preset_i,                // 2 firmware; any other: the paper's rules
 000927	    input wire [49:0] cfg_line_rate_bps_i,
 000270	    input wire [20:0] cfg_g_i,                     // 2^-20ths, 1 to 2^20
 000340	    input wire [20:0] cfg_initial_alpha_i,         // 2^-20ths, at most 2^20
 000133	    input wire [ 4:0] cfg_cut_shift_i,
 000076	    input wire [ 6:0] cfg_min_decrease_percent_i,
 000473	    input wire [39:0] cfg_min_rate_bps_i,
 000157	    input wire [39:0] cfg_first_cnp_rate_bps_i,
 000025	    input wire        cfg_clamp_target_i,
 000496	    input wire [39:0] cfg_alpha_period_ps_i,
 000412	    input wire [39:0] cfg_reduce_monitor_ps_i,
 000572	    input wire [39:0] cfg_timer_ps_i,
 000477	    input wire [40:0] cfg_byte_counter_bytes_i,
 000224	    input wire [20:0] cfg_threshold_i,
 000435	    input wire [39:0] cfg_additive_increase_bps_i,
 000544	    input wire [39:0] cfg_hyper_increase_bps_i,
	
	    // One operation, taken at a rising edge with both high.
 047968	    input  wire                  op_valid_i,
 048013	    output logic                 op_ready_o,   // high only while idle
 016551	    input  wire  [          1:0] op_kind_i,    // 0 look, 1 open, 2 cnp, 3 sent
 046396	    input  wire  [SLOT_BITS-1:0] op_slot_i,
 247288	    input  wire  [         63:0] op_now_ps_i,
 140533	    input  wire  [         15:0] op_bytes_i,   // sent: the packet's wire bytes
	
	    // The slot after the operation: res_valid_o high for one cycle, the
	    // values steady from then until the next operation is taken.
 047923	    output logic        res_valid_o,
 007568	    output logic        res_cut_o,           // a cnp that cut the rate
 007608	    output logic        res_active_o,
 1327824	    output logic [49:0] res_rate_bps_o,
 936708	    output logic [49:0] res_target_bps_o,
 4209853	    output logic [20:0] res_alpha_o,
 245326	    output logic [31:0] res_timer_events_o,
 034734	    output logic [31:0] res_byte_events_o,
 429574	    output logic [63:0] res_next_send_ps_o
	);
	
	  if (SLOT_BITS < 1 || SLOT_BITS > 16) begin : g_bad_slot_bits
	    $error("rate_limiter: SLOT_BITS must be 1 to 16");
	  end
	  if (TEST_FAULT != 0 && TEST_FAULT != 1) begin : g_bad_test_fault
	    $error("rate_limiter: TEST_FAULT must be 0 or 1");
	  end
	
	  localparam int Slots = 1 << SLOT_BITS;
	  localparam logic [1:0] KindLook = 2'd0;
	  localparam logic [1:0] KindOpen = 2'd1;
	  localparam logic [1:0] KindCnp = 2'd2;
	  localparam logic [1:0] KindSent = 2'd3;
	  localparam logic [1:0] PresetFirmware = 2'd2;  // DcqcnPreset::kFirmware
	  // R_AI, R_HAI, the minimum and first-CNP rates and the periods have 40
	  // bits (the ports); these the rest:
	  localparam int RateW = 50;  // line rate, RC, RT: below 2^50 bit/s
	  localparam int BytesW = 41;  // B, and the count toward it (below B + 2^16)
	  localparam int ProductW = 72;  // see the multiplier
	  localparam logic [20:0] AlphaOne = 21'h10_0000;
	  localparam logic [RateW-1:0] PsBitsPerByte = RateW'(64'd8_000_000_000_000);  // 8 bits x 10^12 ps/s
	  // The divider's dividend: RC x percent is below 2^57 (2^50 x 100); wire
	  // bytes x 8 x 10^12 below 2^59 (65535 x 8e12 = 5.2e17). Both in 60 bits,
	  // 15 cycles of DivBits quotient bits.
	  localparam int DivBits = 4;
	  localparam int DivW = 60;
	  localparam logic [3:0] DivCycles = 4'(DivW / DivBits);
	  localparam logic [RateW-1:0] Hundred = RateW'(100);
	
	  // A slot: every ReactionPoint member and the next-send time.
	  typedef struct packed {
	    logic        active;
	    logic [49:0] rate;    // RC
	    logic [49:0] target;  // RT
	    logic [20:0] alpha;
	    logic [31:0] timer_events;
	    logic [31:0] byte_events;
	    logic [40:0] bytes;  // toward the next byte-counter event
	    logic [63:0] next_timer_ps;
	    logic [63:0] next_alpha_ps;
	    logic        cut_before;
	    logic        increased_since_cut;
	    logic [63:0] last_cut_ps;
	    logic        cnp_this_period;
	    logic        alpha_running;
	    logic [63:0] next_send_ps;
	  } slot_t;
	  // Its width, by hand: yosys 0.23 reads neither $bits of a type nor an
	  // array of structs. A wrong value is a width warning where the array is read.
	  localparam int SlotW = 487;
	
	  typedef enum logic [2:0] {
	    SIdle,     // ready for an operation
	    SAdvance,  // an alpha period or a timer event per cycle; then the operation
	    SBytes,    // sent: a byte-counter event per cycle; then the pacing division
	    SDivide,   // four quotient bits per cycle
	    SCnp,      // the cnp, with the division's floor(RC x percent / 100)
	    SPace      // the next-send time, from the division's quotient
	  } state_e;
	
	  // Whether time `at` has come by `now_ps`, modulo 2^64 (dcqcn.hpp's time_reached).
 19867614	  function automatic logic reached(input logic [63:0] at, input logic [63:0] now_ps);
 9933807	    reached = now_ps - at < 64'h8000_0000_0000_0000;  // int64(now - at) >= 0
	  endfunction
	
	  // In silicon an SRAM, one slot per word: read when an operation is taken,
	  // written when it is done.
	  // Not toggle-counted (rtl/README.md, "Coverage"): every bit of a slot
	  // passes through st_q, whose toggles are, and counting 2^SLOT_BITS copies
	  // would cost more than the rest of the block per cycle.
	  // Public for the tests' backdoor (RtlRateLimiter::load), which writes a
	  // whole slot as a verification environment may.
	  /* verilator coverage_off */
	  logic [SlotW-1:0] slots_q[Slots]  /* verilator public_flat_rw */;
	  /* verilator coverage_on */
	
 118384	  state_e state_q, state_d;
 118384	  verilator_coverage: (next point on previous line)

 19477994	  slot_t st_q, st_d;  // the slot being worked on; the results show it
 19477994	  verilator_coverage: (next point on previous line)

 016551	  logic [1:0] kind_q;
 046396	  logic [SLOT_BITS-1:0] slot_q;
 247288	  logic [63:0] now_q;
 140533	  logic [15:0] bytes_q;
 007568	  logic cut_q, cut_d;
 007568	  verilator_coverage: (next point on previous line)

 047923	  logic res_valid_q, done;
 047968	  verilator_coverage: (next point on previous line)

	
	  // ----------------------------------------------------------- what is due
 000023	  logic firmware, alpha_due, timer_due, byte_due;
 031058	  verilator_coverage: (next point on previous line)

 021472	  verilator_coverage: (next point on previous line)

 005362	  verilator_coverage: (next point on previous line)

 004499	  logic cnp_ignored, cnp_first;
 000946	  verilator_coverage: (next point on previous line)

 004680	  logic cnp_divides;  // the cnp cuts with a minimum decrease: divide first
	
 8514666	  always_comb begin
 4257333	    firmware = cfg_preset_i == PresetFirmware;
 4257333	    alpha_due = st_q.alpha_running && reached(st_q.next_alpha_ps, now_q);
 4257333	    timer_due = st_q.active && reached(st_q.next_timer_ps, now_q);
 4257333	    byte_due = st_q.active && st_q.bytes >= cfg_byte_counter_bytes_i;
	    // A firmware cnp within the monitor period of the last cut is ignored
	    // (even by a QP its limiter let go meanwhile); else a first one, or the
	    // first since the limiter let go, may set a rate instead of cutting.
 4257333	    cnp_ignored = firmware && st_q.cut_before &&
 4257333	        now_q - st_q.last_cut_ps < 64'(cfg_reduce_monitor_ps_i);
 4257333	    cnp_first = firmware && !cnp_ignored && !st_q.active && cfg_first_cnp_rate_bps_i != '0;
 4257333	    cnp_divides = !cnp_ignored && !cnp_first && cfg_min_decrease_percent_i != 7'd0;
	  end
	
	  // ------------------------------------------------------------------ alpha
	  // next_alpha: floor((2^20 - g) alpha / 2^20), plus g if it moves up. With
	  // g at least 1, 2^20 - g and the kept alpha are below 2^20; the raised one
	  // is at most 2^20 while g and alpha are.
 000382	  logic [19:0] one_minus_g, alpha_kept;
 4199795	  verilator_coverage: (next point on previous line)

 4214124	  logic [20:0] alpha_raised;
 8729629	  logic [39:0] alpha_product;
	
 8514666	  always_comb begin
 4257333	    one_minus_g = 20'(AlphaOne - cfg_g_i);
 4257333	    alpha_product = 40'(one_minus_g) * 40'(st_q.alpha);
 4257333	    alpha_kept = 20'(alpha_product >> 20);
 4257333	    alpha_raised = 21'(alpha_kept) + cfg_g_i;
	  end
	
	  // ------------------------------------------------------- the multiplier
	  // A cycle uses one product at most: an increase event's hyper step, the
	  // cut's RC x alpha, or a dividend (RC x percent, wire bytes x 8 x 10^12).
	  // None reaches 2^72: the hyper step is below 2^40 x 2^32, RC x alpha at
	  // most 2^50 x 2^20, the dividends below 2^59.
 047968	  logic from_timer;  // an increase event in SAdvance is the timer's, in SBytes the byte counter's
 298868	  logic [31:0] events_timer, events_bytes, events_most, events_least, hyper_count;
 081369	  verilator_coverage: (next point on previous line)

 287946	  verilator_coverage: (next point on previous line)

 064213	  verilator_coverage: (next point on previous line)

 173525	  verilator_coverage: (next point on previous line)

 1183406	  logic [RateW-1:0] mul_a;
 955343	  logic [31:0] mul_b;
 1812550	  logic [ProductW-1:0] mul_p;
	
 8514666	  always_comb begin
 4257333	    from_timer = state_q == SAdvance;
 4257333	    events_timer = st_q.timer_events + 32'(from_timer);
 4257333	    events_bytes = st_q.byte_events + 32'(!from_timer);
 4257333	    events_most = events_timer > events_bytes ? events_timer : events_bytes;
 4257333	    events_least = events_timer > events_bytes ? events_bytes : events_timer;
 4257333	    hyper_count = events_least - 32'(cfg_threshold_i) + 32'd1;  // uint32, as in C++
	
 4257333	    mul_a = RateW'(cfg_hyper_increase_bps_i);
 4257333	    mul_b = hyper_count;
 4257333	    unique case (state_q)
 7044174	      SAdvance: begin
 143904	        if (!alpha_due && !timer_due) begin
 3450135	        verilator_coverage: (next point on previous line)

 071952	          mul_a = st_q.rate;
 071952	          mul_b = cnp_divides ? 32'(cfg_min_decrease_percent_i) : 32'(st_q.alpha);
	        end
	      end
 101028	      SBytes: begin
 063288	        if (!byte_due) begin
 018870	        verilator_coverage: (next point on previous line)

 031644	          mul_a = PsBitsPerByte;
 031644	          mul_b = 32'(bytes_q);
	        end
	      end
 011436	      SCnp: begin
 005718	        mul_a = st_q.rate;
 005718	        mul_b = 32'(st_q.alpha);
	      end
 1358028	      default: ;
	    endcase
 4257333	    mul_p = ProductW'(mul_a) * ProductW'(mul_b);
	  end
	
	  // --------------------------------------------------------- increase event
	  // ReactionPoint::increase, with its event's own bookkeeping: a timer event
	  // moves the timer on, a byte-counter event takes B bytes off the count.
 20987733	  slot_t inc_st;
 712879	  logic [ProductW-1:0] step;
 1521247	  logic [ProductW:0] target_sum;
 1535828	  logic [RateW:0] rate_sum;
	
 8514666	  always_comb begin
 4257333	    inc_st = st_q;
 4257333	    inc_st.timer_events = events_timer;
 4257333	    inc_st.byte_events = events_bytes;
 4257333	    inc_st.increased_since_cut = 1'b1;
 7044174	    if (from_timer) begin
 735246	    verilator_coverage: (next point on previous line)

 3522087	      inc_st.next_timer_ps = st_q.next_timer_ps + 64'(cfg_timer_ps_i);
 735246	    end else begin
 735246	      inc_st.bytes = st_q.bytes - cfg_byte_counter_bytes_i;
	    end
 2049048	    if (events_least >= 32'(cfg_threshold_i)) begin
 1024524	      step = mul_p;  // hyper: (least - F + 1) x R_HAI
 4298168	    end else if (events_most >= 32'(cfg_threshold_i)) begin
 1083725	    verilator_coverage: (next point on previous line)

 2149084	      step = ProductW'(cfg_additive_increase_bps_i);
 1083725	    end else begin
 1083725	      step = '0;
	    end
 4257333	    target_sum = (ProductW + 1)'(st_q.target) + (ProductW + 1)'(step);  // 128-bit in C++: never wraps
 4257333	    inc_st.target = target_sum < (ProductW + 1)'(cfg_line_rate_bps_i) ? RateW'(target_sum) :
 4257333	        cfg_line_rate_bps_i;
 4257333	    rate_sum = (RateW + 1)'(inc_st.target) + (RateW + 1)'(st_q.rate) + (RateW + 1)'(TEST_FAULT);
 4257333	    inc_st.rate = RateW'(rate_sum >> 1);
	    // Within a bit per second of line rate the limiter lets go.
 1162378	    if ((RateW + 1)'(inc_st.rate) + (RateW + 1)'(1) >= (RateW + 1)'(cfg_line_rate_bps_i)) begin
 3676144	    verilator_coverage: (next point on previous line)

 581189	      inc_st.rate = cfg_line_rate_bps_i;
 581189	      inc_st.target = cfg_line_rate_bps_i;
 581189	      inc_st.active = 1'b0;
 581189	      inc_st.bytes = '0;
	    end
	  end
	
	  // -------------------------------------------------------------------- cnp
	  // The divider's registers (below): its quotient is floor(RC x percent / 100)
	  // when a cnp comes to SCnp.
 2731351	  logic [DivW-1:0] div_quo_q;
 2121104	  logic [RateW-1:0] div_rem_q;
	
 14316060	  slot_t cnp_st;
 004544	  logic cnp_cut;  // ReactionPoint::cnp's answer
 1200882	  logic [ProductW-1:0] decrease;
 2965703	  logic [RateW-1:0] cut_to, cut_floor, cut_rate;
 1441549	  verilator_coverage: (next point on previous line)

 1960180	  verilator_coverage: (next point on previous line)

 000529	  logic [39:0] first_rate;  // below the first-CNP and minimum rates' 2^40
	
 8514666	  always_comb begin
	    // cut(RC): RC - floor(RC x alpha / 2^s), no lower than the minimum
	    // decrease's share or the minimum rate, no higher than RC.
 4257333	    decrease = mul_p >> cfg_cut_shift_i;
 4257333	    cut_to = decrease >= ProductW'(st_q.rate) ? '0 : st_q.rate - RateW'(decrease);
	    // The quotient is at most RC.
 4257333	    cut_floor = cfg_min_decrease_percent_i == 7'd0 ? '0 : RateW'(div_quo_q);
 836106	    if (cut_floor > cut_to) cut_to = cut_floor;
 3839280	    verilator_coverage: (next point on previous line)

 1633284	    if (RateW'(cfg_min_rate_bps_i) > cut_to) cut_to = RateW'(cfg_min_rate_bps_i);
 3440691	    verilator_coverage: (next point on previous line)

 4257333	    cut_rate = cut_to < st_q.rate ? cut_to : st_q.rate;
	
	    // As the model: min(max(first, min), line).
 4257333	    first_rate = cfg_first_cnp_rate_bps_i < cfg_min_rate_bps_i ? cfg_min_rate_bps_i :
 4257333	        cfg_first_cnp_rate_bps_i;
 029362	    if (cfg_line_rate_bps_i < RateW'(first_rate)) first_rate = 40'(cfg_line_rate_bps_i);
 4242652	    verilator_coverage: (next point on previous line)

	
 4257333	    cnp_st = st_q;
 4257333	    cnp_cut = !cnp_ignored;
 5474296	    if (firmware) begin
 1520185	    verilator_coverage: (next point on previous line)

 2737148	      cnp_st.cnp_this_period = 1'b1;
 555614	      if (!st_q.alpha_running) begin
 2459341	      verilator_coverage: (next point on previous line)

 277807	        cnp_st.alpha_running = 1'b1;
 277807	        cnp_st.next_alpha_ps = now_q + 64'(cfg_alpha_period_ps_i);
	      end
 014812	      if (cnp_first) begin
 007406	        cnp_st.rate = RateW'(first_rate);
 007406	        cnp_st.target = RateW'(first_rate);
 5403696	      end else if (!cnp_ignored) begin
 027894	      verilator_coverage: (next point on previous line)

	        // Without clamp_tgt_rate RT follows only the first cut after an increase.
 4414914	        if (cfg_clamp_target_i || !st_q.cut_before || st_q.increased_since_cut) begin
 494391	        verilator_coverage: (next point on previous line)

 2207457	          cnp_st.target = st_q.rate;
	        end
 2701848	        cnp_st.rate = cut_rate;
	      end
 1520185	    end else begin
 1520185	      cnp_st.target = st_q.rate;
 1520185	      cnp_st.rate = cut_rate;  // with alpha before its update
 1520185	      cnp_st.alpha = alpha_raised;
 1520185	      cnp_st.alpha_running = 1'b1;  // the alpha timer restarts
 1520185	      cnp_st.next_alpha_ps = now_q + 64'(cfg_alpha_period_ps_i);
	    end
 8458878	    if (cnp_cut) begin
 027894	    verilator_coverage: (next point on previous line)

 4229439	      cnp_st.active = 1'b1;
 4229439	      cnp_st.cut_before = 1'b1;
 4229439	      cnp_st.increased_since_cut = 1'b0;
 4229439	      cnp_st.last_cut_ps = now_q;
 4229439	      cnp_st.timer_events = '0;
 4229439	      cnp_st.byte_events = '0;
 4229439	      cnp_st.bytes = '0;
 4229439	      cnp_st.next_timer_ps = now_q + 64'(cfg_timer_ps_i);
	    end
	  end
	
	  // ---------------------------------------------------------------- divider
	  // Restoring, DivBits quotient bits per cycle (radix 16): the dividend
	  // shifts out of the quotient register's top as the quotient bits shift in
	  // at its bottom.
	  // The divisor is RC or 100, and the remainder below it: RateW bits.
 2731351	  logic [DivW-1:0] div_quo_d;
 2121104	  logic [RateW-1:0] div_rem_d, div_den_q, div_den_d;
 187739	  verilator_coverage: (next point on previous line)

 187739	  verilator_coverage: (next point on previous line)

 369900	  logic [3:0] div_steps_q, div_steps_d;  // cycles still to do
 369900	  verilator_coverage: (next point on previous line)

 2619939	  logic [DivW-1:0] div_quo_next;
 2292823	  logic [RateW-1:0] div_rem_next;
 2326734	  logic [RateW:0] div_shifted;
 045779	  logic div_fits;
	
	  // DivBits restoring steps a cycle, chained: each shifts the next dividend
	  // bit into the remainder and the quotient bit in at the bottom.
 2838282	  always_comb begin
 1419141	    div_quo_next = div_quo_q;
 1419141	    div_rem_next = div_rem_q;
 1419141	    div_shifted = '0;
 1419141	    div_fits = 1'b0;
 1419141	    for (int i = 0; i < DivBits; i++) begin
 11353128	    verilator_coverage: (next point on previous line)

 5676564	      div_shifted = {div_rem_next, div_quo_next[DivW-1]};
 5676564	      div_fits = div_shifted >= {1'b0, div_den_q};
 5676564	      div_quo_next = {div_quo_next[DivW-2:0], div_fits};
 5676564	      div_rem_next = div_fits ? RateW'(div_shifted - {1'b0, div_den_q}) : div_shifted[RateW-1:0];
	    end
	  end
	
	  // ----------------------------------------------------------------- pacing
	  // later(now, next send) + ceil(wire bytes x 8 x 10^12 / RC), modulo 2^64.
 379857	  logic [63:0] pace_from;
 2750974	  logic [DivW-1:0] pace_ps;  // the quotient is below 2^59
	
 2838282	  always_comb begin
 1419141	    pace_from = reached(st_q.next_send_ps, now_q) ? now_q : st_q.next_send_ps;
 1419141	    pace_ps = div_quo_q + DivW'(div_rem_q != '0);
	  end
	
	  // -------------------------------------------------------------- the FSM
 8514666	  always_comb begin
 4257333	    state_d = state_q;
 4257333	    st_d = st_q;
 4257333	    cut_d = cut_q;
 4257333	    done = 1'b0;
 4257333	    div_quo_d = div_quo_q;
 4257333	    div_rem_d = div_rem_q;
 4257333	    div_den_d = div_den_q;
 4257333	    div_steps_d = div_steps_q;
	
 4257333	    unique case (state_q)
 185784	      SIdle: begin
 095936	        if (op_valid_i) begin
 044924	        verilator_coverage: (next point on previous line)

 047968	          state_d = SAdvance;
 002384	          if (op_kind_i == KindOpen) begin
 046776	          verilator_coverage: (next point on previous line)

	            // As ReactionPoint's constructor leaves it.
 001192	            st_d = '0;
 001192	            st_d.rate = cfg_line_rate_bps_i;
 001192	            st_d.target = cfg_line_rate_bps_i;
 001192	            st_d.alpha = cfg_initial_alpha_i;
 001192	            st_d.next_send_ps = op_now_ps_i;
 046776	          end else begin
 046776	            st_d = slots_q[op_slot_i];
	          end
 047968	          cut_d = 1'b0;
	        end
	      end
 7044174	      SAdvance: begin
 6283068	        if (alpha_due) begin
 3141534	          st_d.next_alpha_ps = st_q.next_alpha_ps + 64'(cfg_alpha_period_ps_i);
	          // Firmware: the period that ended moves alpha up if a CNP came in it.
 3141534	          st_d.alpha = firmware && st_q.cnp_this_period ? alpha_raised : 21'(alpha_kept);
 3141534	          st_d.cnp_this_period = 1'b0;
 007020	          if (st_d.alpha == 21'd0) st_d.alpha_running = 1'b0;  // nothing left to decay
 3138024	          verilator_coverage: (next point on previous line)

 617202	        end else if (timer_due) begin
 071952	        verilator_coverage: (next point on previous line)

 308601	          st_d = inc_st;
 071952	        end else begin
 071952	          unique case (kind_q)
 023208	            KindCnp: begin
 011436	              if (cnp_divides) begin
 005886	              verilator_coverage: (next point on previous line)

 005718	                div_quo_d = DivW'(mul_p);  // RC x percent
 005718	                div_rem_d = '0;
 005718	                div_den_d = Hundred;
 005718	                div_steps_d = DivCycles;
 005718	                state_d = SDivide;
 005886	              end else begin
 005886	                st_d = cnp_st;
 005886	                cut_d = cnp_cut;
 005886	                done = 1'b1;
	              end
	            end
 094674	            KindSent: begin
 063288	              if (st_q.active) begin
 015693	              verilator_coverage: (next point on previous line)

 031644	                st_d.bytes = st_q.bytes + BytesW'(bytes_q);
 031644	                state_d = SBytes;
 015693	              end else begin
 015693	                done = 1'b1;
	              end
	            end
 026022	            KindLook, KindOpen: done = 1'b1;
	          endcase
	        end
	      end
 101028	      SBytes: begin
 037740	        if (byte_due) begin
 018870	          st_d = inc_st;
 062544	        end else if (st_q.active) begin
 000372	        verilator_coverage: (next point on previous line)

 031272	          div_quo_d = DivW'(mul_p);  // wire bytes x 8 x 10^12
 031272	          div_rem_d = '0;
 031272	          div_den_d = st_q.rate;
 031272	          div_steps_d = DivCycles;
 031272	          state_d = SDivide;
 000372	        end else begin
 000372	          done = 1'b1;  // its last event let go: no pacing
	        end
	      end
 1109700	      SDivide: begin
 554850	        div_quo_d = div_quo_next;
 554850	        div_rem_d = div_rem_next;
 554850	        div_steps_d = div_steps_q - 4'd1;
 073980	        if (div_steps_q == 4'd1) state_d = kind_q == KindCnp ? SCnp : SPace;
 517860	        verilator_coverage: (next point on previous line)

	      end
 011436	      SCnp: begin
 005718	        st_d = cnp_st;
 005718	        cut_d = cnp_cut;
 005718	        done = 1'b1;
	      end
 062544	      SPace: begin
 031272	        st_d.next_send_ps = pace_from + 64'(pace_ps);
 031272	        done = 1'b1;
	      end
	    endcase
 143904	    if (done) state_d = SIdle;
 4185381	    verilator_coverage: (next point on previous line)

	  end
	
 2838192	  always_ff @(posedge clk_i) begin
 000090	    if (!rst_ni) begin
 1419051	    verilator_coverage: (next point on previous line)

 000045	      state_q <= SIdle;
 000045	      res_valid_q <= 1'b0;
 000045	      cut_q <= 1'b0;
 1419051	    end else begin
 1419051	      state_q <= state_d;
 1419051	      res_valid_q <= done;
 1419051	      cut_q <= cut_d;
	    end
	  end
	
 2838192	  always_ff @(posedge clk_i) begin
 1419096	    st_q <= st_d;
 047968	    if (state_q == SIdle && op_valid_i) begin
 1395112	    verilator_coverage: (next point on previous line)

 023984	      kind_q <= op_kind_i;
 023984	      slot_q <= op_slot_i;
 023984	      now_q <= op_now_ps_i;
 023984	      bytes_q <= op_bytes_i;
	    end
 1419096	    div_quo_q <= div_quo_d;
 1419096	    div_rem_q <= div_rem_d;
 1419096	    div_den_q <= div_den_d;
 1419096	    div_steps_q <= div_steps_d;
	  end
	
	  // A reset in the middle of an operation leaves its slot as it was.
 2838192	  always_ff @(posedge clk_i) begin
 047968	    if (rst_ni && done) slots_q[slot_q] <= st_d;
 1395112	    verilator_coverage: (next point on previous line)

	  end
	
 2838282	  always_comb begin
 1419141	    op_ready_o = state_q == SIdle;
 1419141	    res_valid_o = res_valid_q;
 1419141	    res_cut_o = cut_q;
 1419141	    res_active_o = st_q.active;
 1419141	    res_rate_bps_o = st_q.rate;
 1419141	    res_target_bps_o = st_q.target;
 1419141	    res_alpha_o = st_q.alpha;
 1419141	    res_timer_events_o = st_q.timer_events;
 1419141	    res_byte_events_o = st_q.byte_events;
 1419141	    res_next_send_ps_o = st_q.next_send_ps;
	  end
	
	endmodule
	
	`resetall
	
