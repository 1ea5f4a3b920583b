#include "app/ui/shell/gl_context.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <glad/gl.h>
#include <GLFW/glfw3.h>

#include <cstdlib>

namespace pl::ui {
namespace {

std::string g_glfw_error;
void on_glfw_error(int, const char* description) { g_glfw_error = description; }

class GlfwContext final : public GlContext {
 public:
  explicit GlfwContext(GLFWwindow* w) : window_(w) {}
  ~GlfwContext() override {
    glfwDestroyWindow(window_);
    glfwTerminate();
  }
  bool should_close() override { return glfwWindowShouldClose(window_); }
  void begin_frame(int* w, int* h, float* scale) override {
    glfwPollEvents();
    glfwGetFramebufferSize(window_, w, h);
    float sx = 1, sy = 1;
    glfwGetWindowContentScale(window_, &sx, &sy);
    *scale = sx;
  }
  void end_frame() override { glfwSwapBuffers(window_); }
  GLFWwindow* glfw_window() override { return window_; }

 private:
  GLFWwindow* window_;
};

class EglContext final : public GlContext {
 public:
  EglContext(EGLDisplay d, EGLContext c, int w, int h) : display_(d), context_(c), w_(w), h_(h) {}
  ~EglContext() override {
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(display_, context_);
    eglTerminate(display_);
  }
  bool should_close() override { return false; }
  void begin_frame(int* w, int* h, float* scale) override {
    *w = w_;
    *h = h_;
    *scale = 1.0f;
  }
  void end_frame() override { glFinish(); }

 private:
  EGLDisplay display_;
  EGLContext context_;
  int w_, h_;
};

EGLDisplay surfaceless_display() {
  auto get_platform_display =
      reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (get_platform_display) {
    EGLDisplay d = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (d != EGL_NO_DISPLAY && eglInitialize(d, nullptr, nullptr)) return d;
  }
  EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);  // e.g. NVIDIA's EGL device platform
  if (d != EGL_NO_DISPLAY && eglInitialize(d, nullptr, nullptr)) return d;
  return EGL_NO_DISPLAY;
}

}  // namespace

bool have_display() {
  const char* x = std::getenv("DISPLAY");
  const char* w = std::getenv("WAYLAND_DISPLAY");
  return (x && *x) || (w && *w);
}

Expected<std::unique_ptr<GlContext>> open_window(int width, int height, bool visible) {
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit()) return Error{"could not start GLFW: " + g_glfw_error};
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);  // HiDPI: window size in screen units
  glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
  GLFWwindow* w = glfwCreateWindow(width, height, "Precision Lab", nullptr, nullptr);
  if (!w) {
    glfwTerminate();
    return Error{"could not open an OpenGL 3.3 window: " + g_glfw_error};
  }
  glfwMakeContextCurrent(w);
  glfwSwapInterval(1);
  if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(glfwGetProcAddress))) {
    glfwDestroyWindow(w);
    glfwTerminate();
    return Error{"could not load OpenGL functions"};
  }
  return std::unique_ptr<GlContext>(std::make_unique<GlfwContext>(w));
}

Expected<std::unique_ptr<GlContext>> open_headless(int width, int height) {
  EGLDisplay d = surfaceless_display();
  if (d == EGL_NO_DISPLAY)
    return Error{"no EGL display (install libegl-mesa0 and libgl1-mesa-dri for surfaceless rendering)"};
  eglBindAPI(EGL_OPENGL_API);
  const EGLint config_attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
  EGLConfig config;
  EGLint count = 0;
  eglChooseConfig(d, config_attribs, &config, 1, &count);
  const EGLint context_attribs[] = {
      EGL_CONTEXT_MAJOR_VERSION,           3,       EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
      EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  EGLContext c = eglCreateContext(d, count ? config : EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, context_attribs);
  if (c == EGL_NO_CONTEXT || !eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, c)) {
    eglTerminate(d);
    return Error{"could not create a surfaceless OpenGL 3.3 context"};
  }
  if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress)))
    return Error{"could not load OpenGL functions through EGL"};
  return std::unique_ptr<GlContext>(std::make_unique<EglContext>(d, c, width, height));
}

}  // namespace pl::ui
