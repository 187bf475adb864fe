-- SPDX-License-Identifier: GPL-2.0-only OR MIT
--
-- phyllo.lua - a Wireshark/tshark dissector for Phyllo links, as
-- `phyllo capture` and PHYLLO_CAPTURE write them (userspace/lib/lib_capture.h):
--   LINKTYPE_USER10 (157): one COBS chunk per packet as on the wire, the
--     0x00 delimiters removed, epb_flags giving the direction;
--   LINKTYPE_USER11 (158): one phyllo.ko trace event per packet, as text.
--
-- Contract: the layers are decoded exactly as the core receives them
-- (core/phyllo_stack.c, phyllo_cobs.c, phyllo_datagram.c, phyllo_arq.c;
-- bytes per docs/protocol.md, docs/reliable.md, core/phyllo_wire.h), and a
-- damaged frame gets the one error the core would count for it in
-- phyllo.error (overflow, framing, length, crc, type, flags), so counts
-- of those match rx_overflow .. rx_flags of the capturing side. The
-- preset comes from the interface description ("preset standard"), else
-- from the preference. A reliable data unit whose seq is not the next new
-- one of its direction and session is marked phyllo.rel.retransmission;
-- sessions are told apart by the nonces of their SYN|ACK (and an RST
-- ends one). That is exact for the capturing side's own units (what it
-- sends, it captures before any fault); for the far end's it is what
-- arrived. libphyllo's captures (their description says so) also get the
-- type errors its tty transport counts (see capture_preset()).
--
-- Load: tshark -X lua_script:phyllo.lua -r FILE, or copy it into
-- ~/.local/lib/wireshark/plugins/ (Wireshark: Help > About > Folders).

local band, bxor, rshift = bit32.band, bit32.bxor, bit32.rshift

local p_phyllo = Proto("phyllo", "Phyllo link frame")

local TYPES = {
	[0x00] = "control", [0x01] = "version", [0x02] = "capabilities", [0x03] = "error",
	[0x04] = "warn", [0x05] = "info", [0x06] = "debug", [0x07] = "trace", [0x08] = "metrics",
	[0x10] = "bytes/buffer", [0x11] = "bytes/stream", [0x12] = "bytes/chunk",
	[0x20] = "transport/frame", [0x21] = "transport/datagram",
	[0x22] = "transport/validated_datagram", [0x23] = "transport/reliable_buffer",
	[0x24] = "transport/ported_buffer", [0x40] = "presentation/document",
	[0x60] = "application/pubsub", [0x61] = "application/rpc", [0x62] = "application/rest",
}
local FORMATS = {
	[0x10] = "unknown", [0x11] = "MessagePack", [0x12] = "CBOR", [0x13] = "BSON",
	[0x14] = "Avro", [0x50] = "JSON", [0x51] = "CSV",
}
local DIRS = { [0] = "unknown", [1] = "inbound", [2] = "outbound" }
local CRC_STATUS = { [0] = "Bad", [1] = "Good" }

local f = {
	dir = ProtoField.uint8("phyllo.direction", "Direction", base.DEC, DIRS),
	chunk_len = ProtoField.uint16("phyllo.chunk_len", "Chunk length (COBS, on the wire)"),
	frame = ProtoField.bytes("phyllo.frame", "Decoded frame"),
	frame_len = ProtoField.uint16("phyllo.frame_len", "Decoded frame length"),
	error = ProtoField.string("phyllo.error", "Receive error (the core's counter)"),
	dg_len = ProtoField.uint8("phyllo.dgram.len", "Datagram payload length"),
	dg_type = ProtoField.uint8("phyllo.dgram.type", "Datagram type", base.HEX, TYPES),
	crc = ProtoField.uint32("phyllo.crc", "CRC-32 (Ray32sub8)", base.HEX),
	crc_calc = ProtoField.uint32("phyllo.crc.computed", "CRC-32 computed", base.HEX),
	crc_status = ProtoField.uint8("phyllo.crc.status", "CRC status", base.DEC, CRC_STATUS),
	v_type = ProtoField.uint8("phyllo.vdgram.type", "Validated datagram type", base.HEX, TYPES),
	seq = ProtoField.uint8("phyllo.rel.seq", "Seq"),
	ack = ProtoField.uint8("phyllo.rel.ack", "Ack"),
	flags = ProtoField.uint8("phyllo.rel.flags", "Flags", base.HEX),
	fl_fin = ProtoField.bool("phyllo.rel.flags.fin", "FIN", 8, nil, 0x01),
	fl_syn = ProtoField.bool("phyllo.rel.flags.syn", "SYN", 8, nil, 0x02),
	fl_nos = ProtoField.bool("phyllo.rel.flags.nos", "NOS (unreliable)", 8, nil, 0x04),
	fl_ack = ProtoField.bool("phyllo.rel.flags.ack", "ACK", 8, nil, 0x08),
	fl_nak = ProtoField.bool("phyllo.rel.flags.nak", "NAK", 8, nil, 0x10),
	fl_sak = ProtoField.bool("phyllo.rel.flags.sak", "SAK", 8, nil, 0x20),
	fl_rst = ProtoField.bool("phyllo.rel.flags.rst", "RST", 8, nil, 0x40),
	fl_ext = ProtoField.bool("phyllo.rel.flags.ext", "EXT", 8, nil, 0x80),
	r_type = ProtoField.uint8("phyllo.rel.type", "Reliable type", base.HEX, TYPES),
	ext = ProtoField.bytes("phyllo.rel.ext", "Extension"),
	kind = ProtoField.string("phyllo.rel.kind", "Unit kind"),
	retx = ProtoField.bool("phyllo.rel.retransmission", "Retransmission"),
	retx_of = ProtoField.framenum("phyllo.rel.retransmission_of", "First sent in frame"),
	session = ProtoField.uint32("phyllo.rel.session", "Session (in this capture)"),
	syn_window = ProtoField.uint8("phyllo.syn.window", "Window (units in flight)"),
	syn_nonce = ProtoField.uint32("phyllo.syn.nonce", "Sender's nonce", base.HEX),
	syn_peer = ProtoField.uint32("phyllo.syn.peer_nonce", "Receiver's nonce", base.HEX),
	unit_type = ProtoField.uint8("phyllo.unit.type", "Unit type", base.HEX, TYPES),
	ps_type = ProtoField.uint8("phyllo.pubsub.type", "Pub-sub type", base.HEX, TYPES),
	ps_tlen = ProtoField.uint8("phyllo.pubsub.topic_len", "Topic length", base.DEC, nil, 0x0f),
	ps_resv = ProtoField.uint8("phyllo.pubsub.reserved", "Reserved", base.HEX, nil, 0xf0),
	ps_topic = ProtoField.string("phyllo.pubsub.topic", "Topic"),
	doc_format = ProtoField.uint8("phyllo.doc.format", "Document format", base.HEX, FORMATS),
	doc_schema = ProtoField.uint8("phyllo.doc.schema", "Document schema", base.HEX),
	msgpack = ProtoField.string("phyllo.msgpack", "MessagePack"),
	mp_item = ProtoField.string("phyllo.msgpack.item", "Item"),
	payload = ProtoField.bytes("phyllo.payload", "Payload"),
}
p_phyllo.fields = f

local e_err = ProtoExpert.new("phyllo.error.expert", "Receive error", expert.group.MALFORMED,
	expert.severity.ERROR)
local e_crc = ProtoExpert.new("phyllo.crc.bad", "Bad CRC-32", expert.group.CHECKSUM,
	expert.severity.ERROR)
local e_retx = ProtoExpert.new("phyllo.rel.retransmission.expert", "Retransmission",
	expert.group.SEQUENCE, expert.severity.NOTE)
local e_nak = ProtoExpert.new("phyllo.rel.nak.expert", "NAK: resend from ack",
	expert.group.SEQUENCE, expert.severity.WARN)
p_phyllo.experts = { e_err, e_crc, e_retx, e_nak }

p_phyllo.prefs.preset = Pref.enum("Preset when the capture does not say", 3,
	"The stack of the link: minimal, reduced or standard",
	{ { 1, "minimal", 0 }, { 2, "reduced", 1 }, { 3, "standard", 2 } }, false)

local fd_dir = Field.new("frame.packet_flags_direction")
local lib_capture = false	-- set per packet by capture_preset()
local fd_desc = Field.new("frame.interface_description")

-- Ray32sub8, reflected (0xB7800000), init and xor-out 0xFFFFFFFF.
local crc_table = {}
for i = 0, 255 do
	local c = i
	for _ = 1, 8 do
		if band(c, 1) ~= 0 then c = bxor(rshift(c, 1), 0xB7800000) else c = rshift(c, 1) end
	end
	crc_table[i] = c
end
local function crc32(bytes, from, to)
	local c = 0xFFFFFFFF
	for i = from, to do
		c = bxor(rshift(c, 8), crc_table[band(bxor(c, bytes[i]), 0xff)])
	end
	return bxor(c, 0xFFFFFFFF)
end

-- COBS as the core's receiver takes it: nil and "overflow"/"framing", or
-- the decoded bytes (a 0-based table) and their count.
local function cobs_decode(tvb)
	local n = tvb:reported_length_remaining()
	if n > 255 or tvb:len() < n then return nil, "overflow" end
	local out, o, i = {}, 0, 0
	while i < n do
		local code = tvb(i, 1):uint()
		i = i + 1
		if code - 1 > n - i then return nil, "framing" end
		for k = 0, code - 2 do out[o] = tvb(i + k, 1):uint(); o = o + 1 end
		i = i + code - 1
		if code ~= 0xff and i ~= n then out[o] = 0; o = o + 1 end
	end
	return out, o
end

-- ---- MessagePack (spec v5; ext shown as bytes) ----
local mp_value
local function mp_need(tvb, off, n) return off + n <= tvb:len() end
local function mp_str(tvb, off, n, bin)
	if not mp_need(tvb, off, n) then return nil end
	if bin then
		local hex = {}
		for i = 0, n - 1 do hex[#hex + 1] = string.format("%02x", tvb(off + i, 1):uint()) end
		return "bin " .. table.concat(hex, " "), off + n
	end
	if n == 0 then return '""', off end
	return '"' .. tvb(off, n):string(ENC_UTF_8):gsub('["\\]', "\\%0") .. '"', off + n
end
local function mp_seq(tvb, off, n, tree, is_map)
	local parts = {}
	for _ = 1, n do
		local item_off = off
		local k, v
		if is_map then
			k, off = mp_value(tvb, off, nil)
			if not k then return nil end
		end
		v, off = mp_value(tvb, off, nil)
		if not v then return nil end
		local s = is_map and (k .. ":" .. v) or v
		parts[#parts + 1] = s
		if tree then tree:add(f.mp_item, tvb(item_off, off - item_off), s) end
	end
	if is_map then return "{" .. table.concat(parts, ",") .. "}", off end
	return "[" .. table.concat(parts, ",") .. "]", off
end
local function mp_int(tvb, off, n, signed)
	if not mp_need(tvb, off, n) then return nil end
	local r = tvb(off, n)
	local v
	if n == 8 then v = signed and r:int64() or r:uint64()
	else v = signed and r:int() or r:uint() end
	return tostring(v), off + n
end
local function mp_len(tvb, off, n)
	if not mp_need(tvb, off, n) then return nil end
	return tvb(off, n):uint(), off + n
end
-- One value at off: its text and the offset after it, or nil if cut short.
mp_value = function(tvb, off, tree)
	if not mp_need(tvb, off, 1) then return nil end
	local b = tvb(off, 1):uint()
	off = off + 1
	if b <= 0x7f then return tostring(b), off end
	if b >= 0xe0 then return tostring(b - 256), off end
	if b >= 0xa0 and b <= 0xbf then return mp_str(tvb, off, b - 0xa0, false) end
	if b >= 0x90 and b <= 0x9f then return mp_seq(tvb, off, b - 0x90, tree, false) end
	if b >= 0x80 and b <= 0x8f then return mp_seq(tvb, off, b - 0x80, tree, true) end
	if b == 0xc0 then return "nil", off end
	if b == 0xc2 then return "false", off end
	if b == 0xc3 then return "true", off end
	if b >= 0xcc and b <= 0xcf then return mp_int(tvb, off, 2 ^ (b - 0xcc), false) end
	if b >= 0xd0 and b <= 0xd3 then return mp_int(tvb, off, 2 ^ (b - 0xd0), true) end
	if b == 0xca or b == 0xcb then
		local n = b == 0xca and 4 or 8
		if not mp_need(tvb, off, n) then return nil end
		return string.format("%.17g", tvb(off, n):float()), off + n
	end
	local sizes = { [0xd9] = 1, [0xda] = 2, [0xdb] = 4, [0xc4] = 1, [0xc5] = 2, [0xc6] = 4,
		[0xdc] = 2, [0xdd] = 4, [0xde] = 2, [0xdf] = 4 }
	local sz = sizes[b]
	if sz then
		local n
		n, off = mp_len(tvb, off, sz)
		if not n then return nil end
		if b >= 0xd9 and b <= 0xdb then return mp_str(tvb, off, n, false) end
		if b >= 0xc4 and b <= 0xc6 then return mp_str(tvb, off, n, true) end
		return mp_seq(tvb, off, n, tree, b >= 0xde)
	end
	local fixext = { [0xd4] = 1, [0xd5] = 2, [0xd6] = 4, [0xd7] = 8, [0xd8] = 16 }
	local extsz = { [0xc7] = 1, [0xc8] = 2, [0xc9] = 4 }
	local n = fixext[b]
	if not n and extsz[b] then
		n, off = mp_len(tvb, off, extsz[b])
		if not n then return nil end
	end
	if n and mp_need(tvb, off, n + 1) then
		local s = mp_str(tvb, off + 1, n, true)
		return "ext " .. tvb(off, 1):int() .. " " .. s:sub(5), off + 1 + n
	end
	return nil
end

local function dissect_msgpack(tvb, tree, pinfo)
	if tvb:len() == 0 then return end
	local text, off = mp_value(tvb, 0, nil)
	if not text then
		tree:add(f.payload, tvb()):append_text(" (cut short, or not MessagePack)")
		tree:add_proto_expert_info(e_err, "MessagePack body cut short")
		return
	end
	if off < tvb:len() then text = text .. " (+" .. (tvb:len() - off) .. " bytes)" end
	-- once more, for the items' tree under the value
	mp_value(tvb, 0, tree:add(f.msgpack, tvb(), text))
	pinfo.cols.info:append(" " .. (#text > 60 and text:sub(1, 57) .. "..." or text))
end

-- ---- application layers ----
local function dissect_document(tvb, tree, pinfo)
	if tvb:len() < 2 then tree:add(f.payload, tvb()); return end
	local t = tree:add(tvb(), "Document")
	t:add(f.doc_format, tvb(0, 1))
	t:add(f.doc_schema, tvb(1, 1))
	local body = tvb(2):tvb()
	if tvb(0, 1):uint() == 0x11 then dissect_msgpack(body, t, pinfo)
	elseif body:len() > 0 then t:add(f.payload, body()) end
end

local function dissect_pubsub(tvb, tree, pinfo)
	if tvb:len() < 2 then tree:add(f.payload, tvb()); return end
	local t = tree:add(tvb(), "Pub-sub message")
	local ty, tlen = tvb(0, 1):uint(), band(tvb(1, 1):uint(), 0x0f)
	t:add(f.ps_type, tvb(0, 1))
	t:add(f.ps_tlen, tvb(1, 1))
	t:add(f.ps_resv, tvb(1, 1))
	if 2 + tlen > tvb:len() then t:add_proto_expert_info(e_err, "topic cut short"); return end
	local topic = tlen > 0 and tvb(2, tlen):string() or ""
	t:add(f.ps_topic, tlen > 0 and tvb(2, tlen) or tvb(1, 0), topic)
	pinfo.cols.info:append(" pub " .. topic)
	t:append_text(": " .. topic)
	if 2 + tlen == tvb:len() then return end
	local rest = tvb(2 + tlen):tvb()
	if ty == 0x40 then dissect_document(rest, t, pinfo) else t:add(f.payload, rest()) end
end

local function dissect_unit(ty, tvb, tree, pinfo)
	tree:add(f.unit_type, ty)
	if ty <= 0x0f then
		if tvb:len() > 0 then tree:add(f.payload, tvb()) end
		return
	end
	if ty == 0x60 then dissect_pubsub(tvb, tree, pinfo)
	elseif ty == 0x40 then dissect_document(tvb, tree, pinfo)
	elseif tvb:len() > 0 then tree:add(f.payload, tvb()) end
end

-- ---- the reliable layer: sessions and retransmissions ----
local state        -- reset by init: per capture
local seen         -- pinfo.number -> what the first pass found
function p_phyllo.init()
	state = { key = nil, ended = false, session = 0, next = { 0, 0 }, first = { {}, {} } }
	seen = {}
end

local function session_control(flags, body)
	if band(flags, 0x40) ~= 0 then state.ended = true; return end
	if band(flags, 0x0a) ~= 0x0a or body:len() < 9 then return end
	local a, b = body(1, 4):uint(), body(5, 4):uint()
	local key = a < b and (a .. "-" .. b) or (b .. "-" .. a)
	if key ~= state.key or state.ended then
		state.key, state.ended = key, false
		state.session = state.session + 1
		state.next = { 0, 0 }
		state.first = { {}, {} }
	end
end

-- First pass: is this data unit of direction dir a retransmission?
local function track_data(dir, seq, number)
	if dir ~= 1 and dir ~= 2 then return nil end
	local d = (seq - state.next[dir]) % 256
	if d < 128 then
		state.next[dir] = (seq + 1) % 256
		state.first[dir][seq] = number
		return nil
	end
	return state.first[dir][seq] or 0
end

local function flag_names(flags)
	local names, out = { "FIN", "SYN", "NOS", "ACK", "NAK", "SAK", "RST", "EXT" }, {}
	for i = 0, 7 do
		if band(flags, 2 ^ i) ~= 0 then out[#out + 1] = names[i + 1] end
	end
	return table.concat(out, "|")
end

local function unit_kind(flags, ty, nbody)
	if band(flags, 0x40) ~= 0 then return "RST" end
	if band(flags, 0x02) ~= 0 then return band(flags, 0x08) ~= 0 and "SYN|ACK" or "SYN" end
	if band(flags, 0x10) ~= 0 then return "NAK" end
	if band(flags, 0x04) ~= 0 then
		if ty <= 0x0f and nbody == 0 then return "pure ACK" end
		return "unreliable data"
	end
	return "data"
end

-- Returns the error class for a unit the core refuses by its bytes.
local function dissect_reliable(tvb, tree, pinfo, dir)
	if tvb:len() < 4 then return "length" end
	local t = tree:add(tvb(), "Reliable buffer")
	local seq, ack, flags, ty = tvb(0, 1):uint(), tvb(1, 1):uint(), tvb(2, 1):uint(),
		tvb(3, 1):uint()
	local hdr = 4
	t:add(f.seq, tvb(0, 1))
	t:add(f.ack, tvb(1, 1))
	local ft = t:add(f.flags, tvb(2, 1))
	ft:append_text(" (" .. flag_names(flags) .. ")")
	for _, k in ipairs({ "fl_fin", "fl_syn", "fl_nos", "fl_ack", "fl_nak", "fl_sak", "fl_rst",
		"fl_ext" }) do ft:add(f[k], tvb(2, 1)) end
	t:add(f.r_type, tvb(3, 1))
	if band(flags, 0x80) ~= 0 then
		if tvb:len() < 5 or tvb:len() < 5 + tvb(4, 1):uint() then return "length" end
		hdr = 5 + tvb(4, 1):uint()
		if hdr > 5 then t:add(f.ext, tvb(5, hdr - 5)) end
	end
	if band(flags, 0x21) ~= 0 then return "flags" end
	local body = tvb(hdr):tvb()
	local kind = unit_kind(flags, ty, body:len())
	t:add(f.kind, kind)
	if not pinfo.visited then
		local r = {}
		if band(flags, 0x42) ~= 0 then session_control(flags, body) end
		if kind == "data" then r.retx = track_data(dir, seq, pinfo.number) end
		r.session = state.session
		seen[pinfo.number] = r
	end
	local r = seen[pinfo.number] or {}
	if r.session then t:add(f.session, r.session):set_generated() end
	local info = kind
	if band(flags, 0x04) == 0 or band(flags, 0x02) ~= 0 then info = info .. " seq=" .. seq end
	if band(flags, 0x08) ~= 0 then info = info .. " ack=" .. ack end
	if band(flags, 0x10) ~= 0 then t:add_proto_expert_info(e_nak) end
	if r.retx then
		t:add(f.retx, true):set_generated()
		if r.retx > 0 then t:add(f.retx_of, r.retx):set_generated() end
		t:add_proto_expert_info(e_retx)
		info = info .. " [retransmission]"
	end
	pinfo.cols.info:append(" " .. info)
	if band(flags, 0x02) ~= 0 and body:len() >= 5 then
		t:add(f.syn_window, body(0, 1))
		t:add(f.syn_nonce, body(1, 4))
		if body:len() >= 9 then t:add(f.syn_peer, body(5, 4)) end
	elseif band(flags, 0x40) ~= 0 and body:len() >= 8 then
		t:add(f.syn_nonce, body(0, 4))
		t:add(f.syn_peer, body(4, 4))
	else
		dissect_unit(ty, body, t, pinfo)
	end
	return nil
end

-- The validated datagram: nil, or the error class.
local function dissect_validated(tvb, tree, pinfo, bytes, base_off, preset, dir)
	if tvb:len() < 5 then return "length" end
	local t = tree:add(tvb(), "Validated datagram")
	local stored = tvb(0, 4):uint()
	local calc = crc32(bytes, base_off + 4, base_off + tvb:len() - 1)
	local ct = t:add(f.crc, tvb(0, 4))
	t:add(f.crc_calc, calc):set_generated()
	if stored ~= calc then
		t:add(f.crc_status, 0):set_generated()
		ct:append_text(" [Bad: computed 0x" .. string.format("%08x", calc) .. "]")
		ct:add_proto_expert_info(e_crc)
		return "crc"
	end
	t:add(f.crc_status, 1):set_generated()
	ct:append_text(" [Good]")
	t:add(f.v_type, tvb(4, 1))
	local ty = tvb(4, 1):uint()
	local body = tvb(5):tvb()
	if preset == 3 then
		if ty ~= 0x23 then return "type" end
		return dissect_reliable(body, t, pinfo, dir)
	end
	if lib_capture and ty == 0x23 then return "type" end	-- see capture_preset()
	dissect_unit(ty, body, t, pinfo)
	return nil
end

-- The preset the interface description names, else the preference; and
-- whether libphyllo wrote the capture: its tty transport, on minimal and
-- reduced, counts a fuller preset's frames (a datagram of type 0x22 or
-- 0x23, a validated datagram of type 0x23) as rx_type, where the core
-- alone (phyllo peer) delivers them as units.
local function capture_preset()
	local d = fd_desc()
	local s = d and tostring(d.value) or ""
	local name = s:match("preset (%a+)")
	lib_capture = s:find("from libphyllo", 1, true) ~= nil
	if name == "minimal" then return 1 elseif name == "reduced" then return 2
	elseif name == "standard" then return 3 end
	return p_phyllo.prefs.preset
end

function p_phyllo.dissector(tvb, pinfo, tree)
	pinfo.cols.protocol = "Phyllo"
	local dirf = fd_dir()
	local dir = dirf and dirf.value or 0
	local t = tree:add(p_phyllo, tvb())
	t:add(f.dir, dir):set_generated()
	t:add(f.chunk_len, tvb:reported_length_remaining()):set_generated()
	pinfo.cols.info = (dir == 1 and "<- " or dir == 2 and "-> " or "")
	local preset = capture_preset()
	local bytes, n = cobs_decode(tvb)
	local err
	if not bytes then
		err = n
	else
		local ba = ByteArray.new()
		ba:set_size(n)
		for i = 0, n - 1 do ba:set_index(i, bytes[i]) end
		local frame = ba:tvb("COBS-decoded frame")
		t:add(f.frame, frame())
		t:add(f.frame_len, n):set_generated()
		if n < 2 or n ~= 2 + frame(0, 1):uint() then
			err = "length"
		else
			local dt = t:add(frame(), "Datagram")
			dt:add(f.dg_len, frame(0, 1))
			dt:add(f.dg_type, frame(1, 1))
			local ty = frame(1, 1):uint()
			local body = frame(2):tvb()
			if preset == 1 and lib_capture and (ty == 0x22 or ty == 0x23) then
				err = "type"
			elseif preset == 1 then
				dissect_unit(ty, body, dt, pinfo)
			elseif ty ~= 0x22 then
				err = "type"
			else
				err = dissect_validated(body, dt, pinfo, bytes, 2, preset, dir)
			end
		end
	end
	if err then
		t:add(f.error, err):set_generated()
		t:add_proto_expert_info(e_err, "dropped by the receiver: " .. err)
		pinfo.cols.info:append(" [" .. err .. " error]")
	end
end

DissectorTable.get("wtap_encap"):add(wtap.USER10, p_phyllo)

-- ---- phyllo.ko trace events (LINKTYPE_USER11) ----
local p_event = Proto("phyllo_event", "Phyllo trace event")
local ef = {
	name = ProtoField.string("phyllo_event.name", "Event"),
	unit = ProtoField.string("phyllo_event.unit", "Link"),
	field = ProtoField.string("phyllo_event.field", "Field"),
	verdict = ProtoField.string("phyllo_event.verdict", "Verdict"),
	nak = ProtoField.bool("phyllo_event.nak", "NAK"),
	units = ProtoField.uint32("phyllo_event.retransmitted", "Units resent"),
	text = ProtoField.string("phyllo_event.text", "Text"),
}
p_event.fields = ef

function p_event.dissector(tvb, pinfo, tree)
	pinfo.cols.protocol = "Phyllo event"
	local s = tvb():string()
	local t = tree:add(p_event, tvb())
	local name, unit, rest = s:match("^(%S+) (%S+)%s*(.*)$")
	t:add(ef.text, tvb(), s)
	if not name then return end
	t:add(ef.name, name)
	t:add(ef.unit, unit)
	pinfo.cols.info = s
	for word in rest:gmatch("%S+") do
		if word:find("=") then
			t:add(ef.field, word)
			local units = word:match("^units=(%d+)$")
			if units and name == "phyllo_retransmit" then t:add(ef.units, tonumber(units)) end
		elseif word == "NAK" or word == "ACK" then
			t:add(ef.nak, word == "NAK")
		else
			t:add(ef.verdict, word)
		end
	end
end

DissectorTable.get("wtap_encap"):add(wtap.USER11, p_event)
