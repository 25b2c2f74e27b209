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
	//
	// One event per cycle, in the model's order: alpha periods, then
	// rate-increase timer events, then the operation; a sent's byte-counter
	// events one per cycle; one shared 64 x 32 multiplier and one radix-16
	// divider (the pacing time, and a firmware cut's floor(RC x percent / 100)).
	module rate_limiter #(
	    parameter int SLOT_BITS = 4,
	    // Test only: 1 makes the rate increase round up, RC = (RT + RC + 1) / 2,
	    // for the scoreboard to catch.
	    parameter int TEST_FAULT = 0
	) (
 2159540	    input wire clk_i,
 000036	    input wire rst_ni,
	
	    // Configuration (DcqcnParameters), held steady while the block runs.
 000036	    input wire [ 1:0] cfg_preset_i,                // 2 firmware; any other: the paper's rules
 000577	    input wire [63:0] cfg_line_rate_bps_i,
 000256	    input wire [20:0] cfg_g_i,                     // 2^-20ths, at most 2^20
 000286	    input wire [20:0] cfg_initial_alpha_i,         // 2^-20ths, at most 2^20
 000105	    input wire [ 4:0] cfg_cut_shift_i,
 000058	    input wire [ 6:0] cfg_min_decrease_percent_i,
 000383	    input wire [63:0] cfg_min_rate_bps_i,
 000094	    input wire [63:0] cfg_first_cnp_rate_bps_i,
 000022	    input wire        cfg_clamp_target_i,
 000361	    input wire [63:0] cfg_alpha_period_ps_i,
 000297	    input wire [63:0] cfg_reduce_monitor_ps_i,
 000422	    input wire [63:0] cfg_timer_ps_i,
 000396	    input wire [63:0] cfg_byte_counter_bytes_i,
 000175	    input wire [31:0] cfg_threshold_i,
 000300	    input wire [63:0] cfg_additive_increase_bps_i,
 000347	    input wire [63:0] cfg_hyper_increase_bps_i,
	
	    // One operation, taken at a rising edge with both high.
 042714	    input  wire                  op_valid_i,
 042750	    output logic                 op_ready_o,   // high only while idle
 015217	    input  wire  [          1:0] op_kind_i,    // 0 look, 1 open, 2 cnp, 3 sent
 042631	    input  wire  [SLOT_BITS-1:0] op_slot_i,
 215305	    input  wire  [         63:0] op_now_ps_i,
 129412	    input  wire  [         15:0] op_bytes_i,   // sent: the packet's wire bytes
	
	    // The slot after the operation: res_valid_o high for one cycle, the
	    // values steady from then until the next operation is taken.
 042678	    output logic        res_valid_o,
 006928	    output logic        res_cut_o,           // a cnp that cut the rate
 007028	    output logic        res_active_o,
 1049096	    output logic [63:0] res_rate_bps_o,
 712026	    output logic [63:0] res_target_bps_o,
 3210630	    output logic [20:0] res_alpha_o,
 158526	    output logic [31:0] res_timer_events_o,
 025541	    output logic [31:0] res_byte_events_o,
 376913	    output logic [63:0] res_next_send_ps_o
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
	  localparam logic [20:0] AlphaOne = 21'h10_0000;
	  localparam logic [63:0] PsBitsPerByte = 64'd8_000_000_000_000;  // 8 bits x 10^12 ps/s
	  // The divider's dividend: RC x percent is 64 + 7 bits; wire bytes x 8 x
	  // 10^12 is below 2^59 (65535 x 8e12 = 5.2e17). Both rounded up to whole
	  // cycles of DivBits quotient bits: 18 cycles and 15.
	  localparam int DivBits = 4;
	  localparam int DivW = 72;
	  localparam int PaceW = 60;
	  localparam logic [63:0] Hundred = 64'd100;
	
	  // A slot: every ReactionPoint member and the next-send time.
	  typedef struct packed {
	    logic        active;
	    logic [63:0] rate;    // RC
	    logic [63:0] target;  // RT
	    logic [20:0] alpha;
	    logic [31:0] timer_events;
	    logic [31:0] byte_events;
	    logic [63:0] bytes;  // toward the next byte-counter event
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
	  localparam int SlotW = 538;
	
	  typedef enum logic [2:0] {
	    SIdle,     // ready for an operation
	    SAdvance,  // an alpha period or a timer event per cycle; then the operation
	    SBytes,    // sent: a byte-counter event per cycle; then the pacing division
	    SDivide,   // a quotient bit per cycle
	    SCnp,      // the cnp, with the division's floor(RC x percent / 100)
	    SPace      // the next-send time, from the division's quotient
	  } state_e;
	
	  // Whether time `at` has come by `now_ps`, modulo 2^64 (dcqcn.hpp's time_reached).
 15117248	  function automatic logic reached(input logic [63:0] at, input logic [63:0] now_ps);
 7558624	    reached = now_ps - at < 64'h8000_0000_0000_0000;  // int64(now - at) >= 0
	  endfunction
	
	  // In silicon an SRAM, one slot per word: read when an operation is taken,
	  // written when it is done.
	  // Not toggle-counted (rtl/README.md, "Coverage"): every bit of a slot
	  // passes through st_q, whose toggles are, and counting 2^SLOT_BITS copies
	  // would cost more than the rest of the block per cycle.
	  /* verilator coverage_off */
	  logic [SlotW-1:0] slots_q[Slots];
	  /* verilator coverage_on */
	
 102848	  state_e state_q, state_d;
 102848	  verilator_coverage: (next point on previous line)

 14819391	  slot_t st_q, st_d;  // the slot being worked on; the results show it
 14819391	  verilator_coverage: (next point on previous line)

 015217	  logic [1:0] kind_q;
 042631	  logic [SLOT_BITS-1:0] slot_q;
 215305	  logic [63:0] now_q;
 129412	  logic [15:0] bytes_q;
 006928	  logic cut_q, cut_d;
 006928	  verilator_coverage: (next point on previous line)

 042678	  logic res_valid_q, done;
 042714	  verilator_coverage: (next point on previous line)

	
	  // ----------------------------------------------------------- what is due
 000017	  logic firmware, alpha_due, timer_due, byte_due;
 028224	  verilator_coverage: (next point on previous line)

 017564	  verilator_coverage: (next point on previous line)

 005168	  verilator_coverage: (next point on previous line)

 004041	  logic cnp_ignored, cnp_first;
 000776	  verilator_coverage: (next point on previous line)

 004158	  logic cnp_divides;  // the cnp cuts with a minimum decrease: divide first
	
 6478800	  always_comb begin
 3239400	    firmware = cfg_preset_i == PresetFirmware;
 3239400	    alpha_due = st_q.alpha_running && reached(st_q.next_alpha_ps, now_q);
 3239400	    timer_due = st_q.active && reached(st_q.next_timer_ps, now_q);
 3239400	    byte_due = st_q.active && st_q.bytes >= cfg_byte_counter_bytes_i;
	    // A firmware cnp within the monitor period of the last cut is ignored
	    // (even by a QP its limiter let go meanwhile); else a first one, or the
	    // first since the limiter let go, may set a rate instead of cutting.
 3239400	    cnp_ignored = firmware && st_q.cut_before &&
 3239400	        now_q - st_q.last_cut_ps < cfg_reduce_monitor_ps_i;
 3239400	    cnp_first = firmware && !cnp_ignored && !st_q.active && cfg_first_cnp_rate_bps_i != 64'd0;
 3239400	    cnp_divides = !cnp_ignored && !cnp_first && cfg_min_decrease_percent_i != 7'd0;
	  end
	
	  // ------------------------------------------------------------------ alpha
	  // next_alpha: floor((2^20 - g) alpha / 2^20), plus g if it moves up. Both
	  // are at most 2^20 while g and alpha are.
 000321	  logic [20:0] one_minus_g, alpha_kept, alpha_raised;
 3201222	  verilator_coverage: (next point on previous line)

 3214973	  verilator_coverage: (next point on previous line)

 6669447	  logic [41:0] alpha_product;
	
 6478800	  always_comb begin
 3239400	    one_minus_g = AlphaOne - cfg_g_i;
 3239400	    alpha_product = 42'(one_minus_g) * 42'(st_q.alpha);
 3239400	    alpha_kept = 21'(alpha_product >> 20);
 3239400	    alpha_raised = alpha_kept + cfg_g_i;
	  end
	
	  // ------------------------------------------------------- the multiplier
	  // A cycle uses one product at most: an increase event's hyper step, the
	  // cut's RC x alpha, or a dividend (RC x percent, wire bytes x 8 x 10^12).
 042714	  logic from_timer;  // an increase event in SAdvance is the timer's, in SBytes the byte counter's
 202198	  logic [31:0] events_timer, events_bytes, events_most, events_least, hyper_count;
 065078	  verilator_coverage: (next point on previous line)

 195807	  verilator_coverage: (next point on previous line)

 046103	  verilator_coverage: (next point on previous line)

 155703	  verilator_coverage: (next point on previous line)

 1037121	  logic [63:0] mul_a;
 864985	  logic [31:0] mul_b;
 1585601	  logic [95:0] mul_p;
	
 6478800	  always_comb begin
 3239400	    from_timer = state_q == SAdvance;
 3239400	    events_timer = st_q.timer_events + 32'(from_timer);
 3239400	    events_bytes = st_q.byte_events + 32'(!from_timer);
 3239400	    events_most = events_timer > events_bytes ? events_timer : events_bytes;
 3239400	    events_least = events_timer > events_bytes ? events_bytes : events_timer;
 3239400	    hyper_count = events_least - cfg_threshold_i + 32'd1;  // uint32, as in C++
	
 3239400	    mul_a = cfg_hyper_increase_bps_i;
 3239400	    mul_b = hyper_count;
 3239400	    unique case (state_q)
 5175870	      SAdvance: begin
 128142	        if (!alpha_due && !timer_due) begin
 2523864	        verilator_coverage: (next point on previous line)

 064071	          mul_a = st_q.rate;
 064071	          mul_b = cnp_divides ? 32'(cfg_min_decrease_percent_i) : 32'(st_q.alpha);
	        end
	      end
 090750	      SBytes: begin
 053730	        if (!byte_due) begin
 018510	        verilator_coverage: (next point on previous line)

 026865	          mul_a = PsBitsPerByte;
 026865	          mul_b = 32'(bytes_q);
	        end
	      end
 010350	      SCnp: begin
 005175	        mul_a = st_q.rate;
 005175	        mul_b = 32'(st_q.alpha);
	      end
 1201830	      default: ;
	    endcase
 3239400	    mul_p = 96'(mul_a) * 96'(mul_b);
	  end
	
	  // --------------------------------------------------------- increase event
	  // ReactionPoint::increase, with its event's own bookkeeping: a timer event
	  // moves the timer on, a byte-counter event takes B bytes off the count.
 16816658	  slot_t inc_st;
 620688	  logic [96:0] step, target_sum;
 1227961	  verilator_coverage: (next point on previous line)

 1226173	  logic [63:0] rate_sum;
	
 6478800	  always_comb begin
 3239400	    inc_st = st_q;
 3239400	    inc_st.timer_events = events_timer;
 3239400	    inc_st.byte_events = events_bytes;
 3239400	    inc_st.increased_since_cut = 1'b1;
 5175870	    if (from_timer) begin
 651465	    verilator_coverage: (next point on previous line)

 2587935	      inc_st.next_timer_ps = st_q.next_timer_ps + cfg_timer_ps_i;
 651465	    end else begin
 651465	      inc_st.bytes = st_q.bytes - cfg_byte_counter_bytes_i;
	    end
 1818824	    if (events_least >= cfg_threshold_i) begin
 909412	      step = 97'(mul_p);  // hyper: (least - F + 1) x R_HAI
 3148016	    end else if (events_most >= cfg_threshold_i) begin
 755980	    verilator_coverage: (next point on previous line)

 1574008	      step = 97'(cfg_additive_increase_bps_i);
 755980	    end else begin
 755980	      step = '0;
	    end
 3239400	    target_sum = 97'(st_q.target) + step;  // 128-bit in C++: never wraps
 3239400	    inc_st.target = target_sum < 97'(cfg_line_rate_bps_i) ? target_sum[63:0] : cfg_line_rate_bps_i;
	    // uint64 in C++, wrapping as it does (only at line rates past 2^63).
 3239400	    rate_sum = inc_st.target + st_q.rate + 64'(TEST_FAULT);
 3239400	    inc_st.rate = rate_sum >> 1;
	    // Within a bit per second of line rate the limiter lets go.
 1009752	    if (inc_st.rate + 64'd1 >= cfg_line_rate_bps_i) begin
 2734524	    verilator_coverage: (next point on previous line)

 504876	      inc_st.rate = cfg_line_rate_bps_i;
 504876	      inc_st.target = cfg_line_rate_bps_i;
 504876	      inc_st.active = 1'b0;
 504876	      inc_st.bytes = '0;
	    end
	  end
	
	  // -------------------------------------------------------------------- cnp
	  // The divider's registers (below): its quotient is floor(RC x percent / 100)
	  // when a cnp comes to SCnp.
 2465970	  logic [DivW-1:0] div_quo_q;
 1745260	  logic [63:0] div_rem_q;
	
 11017658	  slot_t cnp_st;
 004077	  logic cnp_cut;  // ReactionPoint::cnp's answer
 1041831	  logic [84:0] decrease;
 2756722	  logic [63:0] cut_to, cut_floor, cut_rate, first_rate;
 1459774	  verilator_coverage: (next point on previous line)

 1570910	  verilator_coverage: (next point on previous line)

 000423	  verilator_coverage: (next point on previous line)

	
 6478800	  always_comb begin
	    // cut(RC): RC - floor(RC x alpha / 2^s), no lower than the minimum
	    // decrease's share or the minimum rate, no higher than RC.
 3239400	    decrease = mul_p[84:0] >> cfg_cut_shift_i;
 3239400	    cut_to = decrease >= 85'(st_q.rate) ? 64'd0 : st_q.rate - decrease[63:0];
 3239400	    cut_floor = cfg_min_decrease_percent_i == 7'd0 ? 64'd0 : div_quo_q[63:0];
 649058	    if (cut_floor > cut_to) cut_to = cut_floor;
 2914871	    verilator_coverage: (next point on previous line)

 1624768	    if (cfg_min_rate_bps_i > cut_to) cut_to = cfg_min_rate_bps_i;
 2427016	    verilator_coverage: (next point on previous line)

 3239400	    cut_rate = cut_to < st_q.rate ? cut_to : st_q.rate;
	
	    // std::clamp(first, min, line) as libstdc++ has it: min(max(first, min), line).
 3239400	    first_rate = cfg_first_cnp_rate_bps_i < cfg_min_rate_bps_i ? cfg_min_rate_bps_i :
 3239400	        cfg_first_cnp_rate_bps_i;
 083340	    if (cfg_line_rate_bps_i < first_rate) first_rate = cfg_line_rate_bps_i;
 3197730	    verilator_coverage: (next point on previous line)

	
 3239400	    cnp_st = st_q;
 3239400	    cnp_cut = !cnp_ignored;
 4161598	    if (firmware) begin
 1158601	    verilator_coverage: (next point on previous line)

 2080799	      cnp_st.cnp_this_period = 1'b1;
 362912	      if (!st_q.alpha_running) begin
 1899343	      verilator_coverage: (next point on previous line)

 181456	        cnp_st.alpha_running = 1'b1;
 181456	        cnp_st.next_alpha_ps = now_q + cfg_alpha_period_ps_i;
	      end
 012694	      if (cnp_first) begin
 006347	        cnp_st.rate = first_rate;
 006347	        cnp_st.target = first_rate;
 4097878	      end else if (!cnp_ignored) begin
 025513	      verilator_coverage: (next point on previous line)

	        // Without clamp_tgt_rate RT follows only the first cut after an increase.
 3577006	        if (cfg_clamp_target_i || !st_q.cut_before || st_q.increased_since_cut) begin
 260436	        verilator_coverage: (next point on previous line)

 1788503	          cnp_st.target = st_q.rate;
	        end
 2048939	        cnp_st.rate = cut_rate;
	      end
 1158601	    end else begin
 1158601	      cnp_st.target = st_q.rate;
 1158601	      cnp_st.rate = cut_rate;  // with alpha before its update
 1158601	      cnp_st.alpha = alpha_raised;
 1158601	      cnp_st.alpha_running = 1'b1;  // the alpha timer restarts
 1158601	      cnp_st.next_alpha_ps = now_q + cfg_alpha_period_ps_i;
	    end
 6427774	    if (cnp_cut) begin
 025513	    verilator_coverage: (next point on previous line)

 3213887	      cnp_st.active = 1'b1;
 3213887	      cnp_st.cut_before = 1'b1;
 3213887	      cnp_st.increased_since_cut = 1'b0;
 3213887	      cnp_st.last_cut_ps = now_q;
 3213887	      cnp_st.timer_events = '0;
 3213887	      cnp_st.byte_events = '0;
 3213887	      cnp_st.bytes = '0;
 3213887	      cnp_st.next_timer_ps = now_q + cfg_timer_ps_i;
	    end
	  end
	
	  // ---------------------------------------------------------------- divider
	  // Restoring, DivBits quotient bits per cycle (radix 16): the dividend
	  // shifts out of the quotient register's top as the quotient bits shift in
	  // at its bottom.
 2465970	  logic [DivW-1:0] div_quo_d;
 1745260	  logic [63:0] div_rem_d, div_den_q, div_den_d;
 153205	  verilator_coverage: (next point on previous line)

 153205	  verilator_coverage: (next point on previous line)

 327030	  logic [6:0] div_steps_q, div_steps_d;  // cycles still to do
 327030	  verilator_coverage: (next point on previous line)

 2379568	  logic [DivW-1:0] div_quo_next;
 1886233	  logic [63:0] div_rem_next;
 1913803	  logic [64:0] div_shifted;
 040094	  logic div_fits;
	
	  // DivBits restoring steps a cycle, chained: each shifts the next dividend
	  // bit into the remainder and the quotient bit in at the bottom.
 2159648	  always_comb begin
 1079824	    div_quo_next = div_quo_q;
 1079824	    div_rem_next = div_rem_q;
 1079824	    div_shifted = '0;
 1079824	    div_fits = 1'b0;
 1079824	    for (int i = 0; i < DivBits; i++) begin
 8638592	    verilator_coverage: (next point on previous line)

 4319296	      div_shifted = {div_rem_next, div_quo_next[DivW-1]};
 4319296	      div_fits = div_shifted >= {1'b0, div_den_q};
 4319296	      div_quo_next = {div_quo_next[DivW-2:0], div_fits};
 4319296	      div_rem_next = div_fits ? 64'(div_shifted - {1'b0, div_den_q}) : div_shifted[63:0];
	    end
	  end
	
	  // ----------------------------------------------------------------- pacing
	  // later(now, next send) + ceil(wire bytes x 8 x 10^12 / RC), modulo 2^64.
 336899	  logic [63:0] pace_from, pace_ps;
 2003578	  verilator_coverage: (next point on previous line)

	
 2159648	  always_comb begin
 1079824	    pace_from = reached(st_q.next_send_ps, now_q) ? now_q : st_q.next_send_ps;
 1079824	    pace_ps = div_quo_q[63:0] + 64'(div_rem_q != 64'd0);
	  end
	
	  // -------------------------------------------------------------- the FSM
 216745	  slot_t opened;  // as ReactionPoint's constructor leaves it
	
 6478800	  always_comb begin
 3239400	    opened = '0;
 3239400	    opened.rate = cfg_line_rate_bps_i;
 3239400	    opened.target = cfg_line_rate_bps_i;
 3239400	    opened.alpha = cfg_initial_alpha_i;
 3239400	    opened.next_send_ps = op_now_ps_i;
	
 3239400	    state_d = state_q;
 3239400	    st_d = st_q;
 3239400	    cut_d = cut_q;
 3239400	    done = 1'b0;
 3239400	    div_quo_d = div_quo_q;
 3239400	    div_rem_d = div_rem_q;
 3239400	    div_den_d = div_den_q;
 3239400	    div_steps_d = div_steps_q;
	
 3239400	    unique case (state_q)
 167754	      SIdle: begin
 085428	        if (op_valid_i) begin
 041163	        verilator_coverage: (next point on previous line)

 042714	          state_d = SAdvance;
 042714	          st_d = op_kind_i == KindOpen ? opened : slots_q[op_slot_i];
 042714	          cut_d = 1'b0;
	        end
	      end
 5175870	      SAdvance: begin
 4664592	        if (alpha_due) begin
 2332296	          st_d.next_alpha_ps = st_q.next_alpha_ps + cfg_alpha_period_ps_i;
	          // Firmware: the period that ended moves alpha up if a CNP came in it.
 2332296	          st_d.alpha = firmware && st_q.cnp_this_period ? alpha_raised : alpha_kept;
 2332296	          st_d.cnp_this_period = 1'b0;
 005454	          if (st_d.alpha == 21'd0) st_d.alpha_running = 1'b0;  // nothing left to decay
 2329569	          verilator_coverage: (next point on previous line)

 383136	        end else if (timer_due) begin
 064071	        verilator_coverage: (next point on previous line)

 191568	          st_d = inc_st;
 064071	        end else begin
 064071	          unique case (kind_q)
 021276	            KindCnp: begin
 010350	              if (cnp_divides) begin
 005463	              verilator_coverage: (next point on previous line)

 005175	                div_quo_d = mul_p[DivW-1:0];  // RC x percent
 005175	                div_rem_d = '0;
 005175	                div_den_d = Hundred;
 005175	                div_steps_d = 7'(DivW / DivBits);
 005175	                state_d = SDivide;
 005463	              end else begin
 005463	                st_d = cnp_st;
 005463	                cut_d = cnp_cut;
 005463	                done = 1'b1;
	              end
	            end
 082962	            KindSent: begin
 053730	              if (st_q.active) begin
 014616	              verilator_coverage: (next point on previous line)

 026865	                st_d.bytes = st_q.bytes + 64'(bytes_q);
 026865	                state_d = SBytes;
 014616	              end else begin
 014616	                done = 1'b1;
	              end
	            end
 023904	            KindLook, KindOpen: done = 1'b1;
	          endcase
	        end
	      end
 090750	      SBytes: begin
 037020	        if (byte_due) begin
 018510	          st_d = inc_st;
 052986	        end else if (st_q.active) begin
 000372	        verilator_coverage: (next point on previous line)

 026493	          div_quo_d = {mul_p[PaceW-1:0], (DivW - PaceW)'(0)};  // wire bytes x 8 x 10^12
 026493	          div_rem_d = '0;
 026493	          div_den_d = st_q.rate;
 026493	          div_steps_d = 7'(PaceW / DivBits);
 026493	          state_d = SDivide;
 000372	        end else begin
 000372	          done = 1'b1;  // its last event let go: no pacing
	        end
	      end
 981090	      SDivide: begin
 490545	        div_quo_d = div_quo_next;
 490545	        div_rem_d = div_rem_next;
 490545	        div_steps_d = div_steps_q - 7'd1;
 063336	        if (div_steps_q == 7'd1) state_d = kind_q == KindCnp ? SCnp : SPace;
 458877	        verilator_coverage: (next point on previous line)

	      end
 010350	      SCnp: begin
 005175	        st_d = cnp_st;
 005175	        cut_d = cnp_cut;
 005175	        done = 1'b1;
	      end
 052986	      SPace: begin
 026493	        st_d.next_send_ps = pace_from + pace_ps;
 026493	        done = 1'b1;
	      end
	    endcase
 128142	    if (done) state_d = SIdle;
 3175329	    verilator_coverage: (next point on previous line)

	  end
	
 2159576	  always_ff @(posedge clk_i) begin
 000072	    if (!rst_ni) begin
 1079752	    verilator_coverage: (next point on previous line)

 000036	      state_q <= SIdle;
 000036	      res_valid_q <= 1'b0;
 000036	      cut_q <= 1'b0;
 1079752	    end else begin
 1079752	      state_q <= state_d;
 1079752	      res_valid_q <= done;
 1079752	      cut_q <= cut_d;
	    end
	  end
	
 2159576	  always_ff @(posedge clk_i) begin
 1079788	    st_q <= st_d;
 042714	    if (state_q == SIdle && op_valid_i) begin
 1058431	    verilator_coverage: (next point on previous line)

 021357	      kind_q <= op_kind_i;
 021357	      slot_q <= op_slot_i;
 021357	      now_q <= op_now_ps_i;
 021357	      bytes_q <= op_bytes_i;
	    end
 1079788	    div_quo_q <= div_quo_d;
 1079788	    div_rem_q <= div_rem_d;
 1079788	    div_den_q <= div_den_d;
 1079788	    div_steps_q <= div_steps_d;
	  end
	
	  // A reset in the middle of an operation leaves its slot as it was.
 2159576	  always_ff @(posedge clk_i) begin
 042714	    if (rst_ni && done) slots_q[slot_q] <= st_d;
 1058431	    verilator_coverage: (next point on previous line)

	  end
	
 2159648	  always_comb begin
 1079824	    op_ready_o = state_q == SIdle;
 1079824	    res_valid_o = res_valid_q;
 1079824	    res_cut_o = cut_q;
 1079824	    res_active_o = st_q.active;
 1079824	    res_rate_bps_o = st_q.rate;
 1079824	    res_target_bps_o = st_q.target;
 1079824	    res_alpha_o = st_q.alpha;
 1079824	    res_timer_events_o = st_q.timer_events;
 1079824	    res_byte_events_o = st_q.byte_events;
 1079824	    res_next_send_ps_o = st_q.next_send_ps;
	  end
	
	endmodule
	
	`resetall
	
