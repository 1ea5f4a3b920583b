#version 330 core
// One triangle that covers the whole target; uv runs 0..1 across the covered square, so row 0 of
// the value texture lands on the first row of the target (the top, as the window shows it).
out vec2 uv;
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  uv = p;
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
