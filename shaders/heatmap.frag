#version 330 core
// An error heat map through a colour map: each cell's value (a float texture, one texel per
// cell, sampled nearest) is placed in [vmin, vmax] and looked up in a 256-entry colour table the
// application fills from core's colour maps (viridis, cividis, RdBu) -- the same table the
// exported files and the colour bar use. Values outside the range clamp to its ends; NaN and
// infinities are grey, except +inf where it means exact (a scan's SQNR): white, as in the
// exported figure.
in vec2 uv;
out vec4 colour;
uniform sampler2D values;
uniform sampler2D lut;
uniform float vmin;
uniform float vmax;
uniform int inf_is_exact;
void main() {
  float v = texture(values, uv).r;
  if (inf_is_exact != 0 && isinf(v) && v > 0.0) {
    colour = vec4(1.0, 1.0, 1.0, 1.0);
    return;
  }
  if (isnan(v) || isinf(v)) {
    colour = vec4(0.5, 0.5, 0.5, 1.0);
    return;
  }
  float span = vmax > vmin ? vmax - vmin : 1.0;
  float t = clamp((v - vmin) / span, 0.0, 1.0);
  // Texel centres: entry 0 at 0.5/256, entry 255 at 255.5/256.
  colour = vec4(texture(lut, vec2((t * 255.0 + 0.5) / 256.0, 0.5)).rgb, 1.0);
}
