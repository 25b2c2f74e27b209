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
    input wire clk_i,
    input wire rst_ni,

    // Configuration (DcqcnParameters), held steady while the block runs.
    input wire [ 1:0] cfg_preset_i,                // 2 firmware; any other: the paper's rules
    input wire [49:0] cfg_line_rate_bps_i,
    input wire [20:0] cfg_g_i,                     // 2^-20ths, 1 to 2^20
    input wire [20:0] cfg_initial_alpha_i,         // 2^-20ths, at most 2^20
    input wire [ 4:0] cfg_cut_shift_i,
    input wire [ 6:0] cfg_min_decrease_percent_i,
    input wire [39:0] cfg_min_rate_bps_i,
    input wire [39:0] cfg_first_cnp_rate_bps_i,
    input wire        cfg_clamp_target_i,
    input wire [39:0] cfg_alpha_period_ps_i,
    input wire [39:0] cfg_reduce_monitor_ps_i,
    input wire [39:0] cfg_timer_ps_i,
    input wire [40:0] cfg_byte_counter_bytes_i,
    input wire [20:0] cfg_threshold_i,
    input wire [39:0] cfg_additive_increase_bps_i,
    input wire [39:0] cfg_hyper_increase_bps_i,

    // One operation, taken at a rising edge with both high.
    input  wire                  op_valid_i,
    output logic                 op_ready_o,   // high only while idle
    input  wire  [          1:0] op_kind_i,    // 0 look, 1 open, 2 cnp, 3 sent
    input  wire  [SLOT_BITS-1:0] op_slot_i,
    input  wire  [         63:0] op_now_ps_i,
    input  wire  [         15:0] op_bytes_i,   // sent: the packet's wire bytes

    // The slot after the operation: res_valid_o high for one cycle, the
    // values steady from then until the next operation is taken.
    output logic        res_valid_o,
    output logic        res_cut_o,           // a cnp that cut the rate
    output logic        res_active_o,
    output logic [49:0] res_rate_bps_o,
    output logic [49:0] res_target_bps_o,
    output logic [20:0] res_alpha_o,
    output logic [31:0] res_timer_events_o,
    output logic [31:0] res_byte_events_o,
    output logic [63:0] res_next_send_ps_o
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
  function automatic logic reached(input logic [63:0] at, input logic [63:0] now_ps);
    reached = now_ps - at < 64'h8000_0000_0000_0000;  // int64(now - at) >= 0
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

  state_e state_q, state_d;
  slot_t st_q, st_d;  // the slot being worked on; the results show it
  logic [1:0] kind_q;
  logic [SLOT_BITS-1:0] slot_q;
  logic [63:0] now_q;
  logic [15:0] bytes_q;
  logic cut_q, cut_d;
  logic res_valid_q, done;

  // ----------------------------------------------------------- what is due
  logic firmware, alpha_due, timer_due, byte_due;
  logic cnp_ignored, cnp_first;
  logic cnp_divides;  // the cnp cuts with a minimum decrease: divide first

  always_comb begin
    firmware = cfg_preset_i == PresetFirmware;
    alpha_due = st_q.alpha_running && reached(st_q.next_alpha_ps, now_q);
    timer_due = st_q.active && reached(st_q.next_timer_ps, now_q);
    byte_due = st_q.active && st_q.bytes >= cfg_byte_counter_bytes_i;
    // A firmware cnp within the monitor period of the last cut is ignored
    // (even by a QP its limiter let go meanwhile); else a first one, or the
    // first since the limiter let go, may set a rate instead of cutting.
    cnp_ignored = firmware && st_q.cut_before &&
        now_q - st_q.last_cut_ps < 64'(cfg_reduce_monitor_ps_i);
    cnp_first = firmware && !cnp_ignored && !st_q.active && cfg_first_cnp_rate_bps_i != '0;
    cnp_divides = !cnp_ignored && !cnp_first && cfg_min_decrease_percent_i != 7'd0;
  end

  // ------------------------------------------------------------------ alpha
  // next_alpha: floor((2^20 - g) alpha / 2^20), plus g if it moves up. With
  // g at least 1, 2^20 - g and the kept alpha are below 2^20; the raised one
  // is at most 2^20 while g and alpha are.
  logic [19:0] one_minus_g, alpha_kept;
  logic [20:0] alpha_raised;
  logic [39:0] alpha_product;

  always_comb begin
    one_minus_g = 20'(AlphaOne - cfg_g_i);
    alpha_product = 40'(one_minus_g) * 40'(st_q.alpha);
    alpha_kept = 20'(alpha_product >> 20);
    alpha_raised = 21'(alpha_kept) + cfg_g_i;
  end

  // ------------------------------------------------------- the multiplier
  // A cycle uses one product at most: an increase event's hyper step, the
  // cut's RC x alpha, or a dividend (RC x percent, wire bytes x 8 x 10^12).
  // None reaches 2^72: the hyper step is below 2^40 x 2^32, RC x alpha at
  // most 2^50 x 2^20, the dividends below 2^59.
  logic from_timer;  // an increase event in SAdvance is the timer's, in SBytes the byte counter's
  logic [31:0] events_timer, events_bytes, events_most, events_least, hyper_count;
  logic [RateW-1:0] mul_a;
  logic [31:0] mul_b;
  logic [ProductW-1:0] mul_p;

  always_comb begin
    from_timer = state_q == SAdvance;
    events_timer = st_q.timer_events + 32'(from_timer);
    events_bytes = st_q.byte_events + 32'(!from_timer);
    events_most = events_timer > events_bytes ? events_timer : events_bytes;
    events_least = events_timer > events_bytes ? events_bytes : events_timer;
    hyper_count = events_least - 32'(cfg_threshold_i) + 32'd1;  // uint32, as in C++

    mul_a = RateW'(cfg_hyper_increase_bps_i);
    mul_b = hyper_count;
    unique case (state_q)
      SAdvance: begin
        if (!alpha_due && !timer_due) begin
          mul_a = st_q.rate;
          mul_b = cnp_divides ? 32'(cfg_min_decrease_percent_i) : 32'(st_q.alpha);
        end
      end
      SBytes: begin
        if (!byte_due) begin
          mul_a = PsBitsPerByte;
          mul_b = 32'(bytes_q);
        end
      end
      SCnp: begin
        mul_a = st_q.rate;
        mul_b = 32'(st_q.alpha);
      end
      default: ;
    endcase
    mul_p = ProductW'(mul_a) * ProductW'(mul_b);
  end

  // --------------------------------------------------------- increase event
  // ReactionPoint::increase, with its event's own bookkeeping: a timer event
  // moves the timer on, a byte-counter event takes B bytes off the count.
  slot_t inc_st;
  logic [ProductW-1:0] step;
  logic [ProductW:0] target_sum;
  logic [RateW:0] rate_sum;

  always_comb begin
    inc_st = st_q;
    inc_st.timer_events = events_timer;
    inc_st.byte_events = events_bytes;
    inc_st.increased_since_cut = 1'b1;
    if (from_timer) begin
      inc_st.next_timer_ps = st_q.next_timer_ps + 64'(cfg_timer_ps_i);
    end else begin
      inc_st.bytes = st_q.bytes - cfg_byte_counter_bytes_i;
    end
    if (events_least >= 32'(cfg_threshold_i)) begin
      step = mul_p;  // hyper: (least - F + 1) x R_HAI
    end else if (events_most >= 32'(cfg_threshold_i)) begin
      step = ProductW'(cfg_additive_increase_bps_i);
    end else begin
      step = '0;
    end
    target_sum = (ProductW + 1)'(st_q.target) + (ProductW + 1)'(step);  // 128-bit in C++: never wraps
    inc_st.target = target_sum < (ProductW + 1)'(cfg_line_rate_bps_i) ? RateW'(target_sum) :
        cfg_line_rate_bps_i;
    rate_sum = (RateW + 1)'(inc_st.target) + (RateW + 1)'(st_q.rate) + (RateW + 1)'(TEST_FAULT);
    inc_st.rate = RateW'(rate_sum >> 1);
    // Within a bit per second of line rate the limiter lets go.
    if ((RateW + 1)'(inc_st.rate) + (RateW + 1)'(1) >= (RateW + 1)'(cfg_line_rate_bps_i)) begin
      inc_st.rate = cfg_line_rate_bps_i;
      inc_st.target = cfg_line_rate_bps_i;
      inc_st.active = 1'b0;
      inc_st.bytes = '0;
    end
  end

  // -------------------------------------------------------------------- cnp
  // The divider's registers (below): its quotient is floor(RC x percent / 100)
  // when a cnp comes to SCnp.
  logic [DivW-1:0] div_quo_q;
  logic [RateW-1:0] div_rem_q;

  slot_t cnp_st;
  logic cnp_cut;  // ReactionPoint::cnp's answer
  logic [ProductW-1:0] decrease;
  logic [RateW-1:0] cut_to, cut_floor, cut_rate;
  logic [39:0] first_rate;  // below the first-CNP and minimum rates' 2^40

  always_comb begin
    // cut(RC): RC - floor(RC x alpha / 2^s), no lower than the minimum
    // decrease's share or the minimum rate, no higher than RC.
    decrease = mul_p >> cfg_cut_shift_i;
    cut_to = decrease >= ProductW'(st_q.rate) ? '0 : st_q.rate - RateW'(decrease);
    // The quotient is at most RC.
    cut_floor = cfg_min_decrease_percent_i == 7'd0 ? '0 : RateW'(div_quo_q);
    if (cut_floor > cut_to) cut_to = cut_floor;
    if (RateW'(cfg_min_rate_bps_i) > cut_to) cut_to = RateW'(cfg_min_rate_bps_i);
    cut_rate = cut_to < st_q.rate ? cut_to : st_q.rate;

    // As the model: min(max(first, min), line).
    first_rate = cfg_first_cnp_rate_bps_i < cfg_min_rate_bps_i ? cfg_min_rate_bps_i :
        cfg_first_cnp_rate_bps_i;
    if (cfg_line_rate_bps_i < RateW'(first_rate)) first_rate = 40'(cfg_line_rate_bps_i);

    cnp_st = st_q;
    cnp_cut = !cnp_ignored;
    if (firmware) begin
      cnp_st.cnp_this_period = 1'b1;
      if (!st_q.alpha_running) begin
        cnp_st.alpha_running = 1'b1;
        cnp_st.next_alpha_ps = now_q + 64'(cfg_alpha_period_ps_i);
      end
      if (cnp_first) begin
        cnp_st.rate = RateW'(first_rate);
        cnp_st.target = RateW'(first_rate);
      end else if (!cnp_ignored) begin
        // Without clamp_tgt_rate RT follows only the first cut after an increase.
        if (cfg_clamp_target_i || !st_q.cut_before || st_q.increased_since_cut) begin
          cnp_st.target = st_q.rate;
        end
        cnp_st.rate = cut_rate;
      end
    end else begin
      cnp_st.target = st_q.rate;
      cnp_st.rate = cut_rate;  // with alpha before its update
      cnp_st.alpha = alpha_raised;
      cnp_st.alpha_running = 1'b1;  // the alpha timer restarts
      cnp_st.next_alpha_ps = now_q + 64'(cfg_alpha_period_ps_i);
    end
    if (cnp_cut) begin
      cnp_st.active = 1'b1;
      cnp_st.cut_before = 1'b1;
      cnp_st.increased_since_cut = 1'b0;
      cnp_st.last_cut_ps = now_q;
      cnp_st.timer_events = '0;
      cnp_st.byte_events = '0;
      cnp_st.bytes = '0;
      cnp_st.next_timer_ps = now_q + 64'(cfg_timer_ps_i);
    end
  end

  // ---------------------------------------------------------------- divider
  // Restoring, DivBits quotient bits per cycle (radix 16): the dividend
  // shifts out of the quotient register's top as the quotient bits shift in
  // at its bottom.
  // The divisor is RC or 100, and the remainder below it: RateW bits.
  logic [DivW-1:0] div_quo_d;
  logic [RateW-1:0] div_rem_d, div_den_q, div_den_d;
  logic [3:0] div_steps_q, div_steps_d;  // cycles still to do
  logic [DivW-1:0] div_quo_next;
  logic [RateW-1:0] div_rem_next;
  logic [RateW:0] div_shifted;
  logic div_fits;

  // DivBits restoring steps a cycle, chained: each shifts the next dividend
  // bit into the remainder and the quotient bit in at the bottom.
  always_comb begin
    div_quo_next = div_quo_q;
    div_rem_next = div_rem_q;
    div_shifted = '0;
    div_fits = 1'b0;
    for (int i = 0; i < DivBits; i++) begin
      div_shifted = {div_rem_next, div_quo_next[DivW-1]};
      div_fits = div_shifted >= {1'b0, div_den_q};
      div_quo_next = {div_quo_next[DivW-2:0], div_fits};
      div_rem_next = div_fits ? RateW'(div_shifted - {1'b0, div_den_q}) : div_shifted[RateW-1:0];
    end
  end

  // ----------------------------------------------------------------- pacing
  // later(now, next send) + ceil(wire bytes x 8 x 10^12 / RC), modulo 2^64.
  logic [63:0] pace_from;
  logic [DivW-1:0] pace_ps;  // the quotient is below 2^59

  always_comb begin
    pace_from = reached(st_q.next_send_ps, now_q) ? now_q : st_q.next_send_ps;
    pace_ps = div_quo_q + DivW'(div_rem_q != '0);
  end

  // -------------------------------------------------------------- the FSM
  always_comb begin
    state_d = state_q;
    st_d = st_q;
    cut_d = cut_q;
    done = 1'b0;
    div_quo_d = div_quo_q;
    div_rem_d = div_rem_q;
    div_den_d = div_den_q;
    div_steps_d = div_steps_q;

    unique case (state_q)
      SIdle: begin
        if (op_valid_i) begin
          state_d = SAdvance;
          if (op_kind_i == KindOpen) begin
            // As ReactionPoint's constructor leaves it.
            st_d = '0;
            st_d.rate = cfg_line_rate_bps_i;
            st_d.target = cfg_line_rate_bps_i;
            st_d.alpha = cfg_initial_alpha_i;
            st_d.next_send_ps = op_now_ps_i;
          end else begin
            st_d = slots_q[op_slot_i];
          end
          cut_d = 1'b0;
        end
      end
      SAdvance: begin
        if (alpha_due) begin
          st_d.next_alpha_ps = st_q.next_alpha_ps + 64'(cfg_alpha_period_ps_i);
          // Firmware: the period that ended moves alpha up if a CNP came in it.
          st_d.alpha = firmware && st_q.cnp_this_period ? alpha_raised : 21'(alpha_kept);
          st_d.cnp_this_period = 1'b0;
          if (st_d.alpha == 21'd0) st_d.alpha_running = 1'b0;  // nothing left to decay
        end else if (timer_due) begin
          st_d = inc_st;
        end else begin
          unique case (kind_q)
            KindCnp: begin
              if (cnp_divides) begin
                div_quo_d = DivW'(mul_p);  // RC x percent
                div_rem_d = '0;
                div_den_d = Hundred;
                div_steps_d = DivCycles;
                state_d = SDivide;
              end else begin
                st_d = cnp_st;
                cut_d = cnp_cut;
                done = 1'b1;
              end
            end
            KindSent: begin
              if (st_q.active) begin
                st_d.bytes = st_q.bytes + BytesW'(bytes_q);
                state_d = SBytes;
              end else begin
                done = 1'b1;
              end
            end
            KindLook, KindOpen: done = 1'b1;
          endcase
        end
      end
      SBytes: begin
        if (byte_due) begin
          st_d = inc_st;
        end else if (st_q.active) begin
          div_quo_d = DivW'(mul_p);  // wire bytes x 8 x 10^12
          div_rem_d = '0;
          div_den_d = st_q.rate;
          div_steps_d = DivCycles;
          state_d = SDivide;
        end else begin
          done = 1'b1;  // its last event let go: no pacing
        end
      end
      SDivide: begin
        div_quo_d = div_quo_next;
        div_rem_d = div_rem_next;
        div_steps_d = div_steps_q - 4'd1;
        if (div_steps_q == 4'd1) state_d = kind_q == KindCnp ? SCnp : SPace;
      end
      SCnp: begin
        st_d = cnp_st;
        cut_d = cnp_cut;
        done = 1'b1;
      end
      SPace: begin
        st_d.next_send_ps = pace_from + 64'(pace_ps);
        done = 1'b1;
      end
    endcase
    if (done) state_d = SIdle;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      state_q <= SIdle;
      res_valid_q <= 1'b0;
      cut_q <= 1'b0;
    end else begin
      state_q <= state_d;
      res_valid_q <= done;
      cut_q <= cut_d;
    end
  end

  always_ff @(posedge clk_i) begin
    st_q <= st_d;
    if (state_q == SIdle && op_valid_i) begin
      kind_q <= op_kind_i;
      slot_q <= op_slot_i;
      now_q <= op_now_ps_i;
      bytes_q <= op_bytes_i;
    end
    div_quo_q <= div_quo_d;
    div_rem_q <= div_rem_d;
    div_den_q <= div_den_d;
    div_steps_q <= div_steps_d;
  end

  // A reset in the middle of an operation leaves its slot as it was.
  always_ff @(posedge clk_i) begin
    if (rst_ni && done) slots_q[slot_q] <= st_d;
  end

  always_comb begin
    op_ready_o = state_q == SIdle;
    res_valid_o = res_valid_q;
    res_cut_o = cut_q;
    res_active_o = st_q.active;
    res_rate_bps_o = st_q.rate;
    res_target_bps_o = st_q.target;
    res_alpha_o = st_q.alpha;
    res_timer_events_o = st_q.timer_events;
    res_byte_events_o = st_q.byte_events;
    res_next_send_ps_o = st_q.next_send_ps;
  end

endmodule

`resetall
