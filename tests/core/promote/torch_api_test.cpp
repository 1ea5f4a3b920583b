// The PyTorch snippet engine behind scenario 20. Its answers for the scenario's snippets are
// checked against PyTorch itself through tests/data/scenarios/reference.json; here: the
// parsing, the order Python evaluates things in, and that anything not modelled is refused.
#include "core/promote/torch_api.h"

#include <gtest/gtest.h>

namespace pl::promote {
namespace {

std::string answer(const char* s) {
  auto r = torch_snippet(s);
  return r ? *r : "refused: " + r.error();
}

TEST(TorchSnippet, MissingMethodsRaisePyTorchsAttributeError) {
  EXPECT_EQ(answer("x.to_(torch.float16)"), "AttributeError: 'Tensor' object has no attribute 'to_'");
  EXPECT_EQ(answer("m.astype(torch.float16)"), "AttributeError: 'Linear' object has no attribute 'astype'");
  EXPECT_EQ(answer("torch.as_dtype"), "AttributeError: module 'torch' has no attribute 'as_dtype'");
}

// Python looks the method up before it evaluates the argument: the missing method is named,
// not the missing dtype; an assignment evaluates its right-hand side first.
TEST(TorchSnippet, PythonsEvaluationOrder) {
  EXPECT_EQ(answer("x.to_(torch.fp16)"), "AttributeError: 'Tensor' object has no attribute 'to_'");
  EXPECT_EQ(answer("x.to(torch.fp16)"), "AttributeError: module 'torch' has no attribute 'fp16'");
  EXPECT_EQ(answer("x.dtype = torch.fp16"), "AttributeError: module 'torch' has no attribute 'fp16'");
}

TEST(TorchSnippet, RealConversionsGiveTheirDtype) {
  EXPECT_EQ(answer("x.to(dtype=torch.bfloat16)"), "bfloat16");
  EXPECT_EQ(answer(" x.char() "), "int8");
  EXPECT_EQ(answer("m.to(torch.float8_e4m3fn)"), "weight float8_e4m3fn (same Parameter objects)");
  EXPECT_EQ(answer("m.type(torch.int8)"),
            "RuntimeError: data set to a tensor that requires gradients must be floating point or complex dtype");
  EXPECT_EQ(answer("torch.set_default_dtype(torch.bfloat16)"), "ok");
  EXPECT_EQ(answer("x.shape = torch.float16"),
            "AttributeError: attribute 'shape' of 'torch._C.TensorBase' objects is not writable");
}

// "A tensor never changes its dtype in place -- every cast makes a new tensor" was overstated:
// x.to(x.dtype) returns x itself, and a module's conversions keep its Parameter objects.
TEST(TorchSnippet, SaysWhatIsReturnedItselfAndWhatIsNew) {
  EXPECT_EQ(answer("x.to(torch.float32)"), "float32 (x itself)");
  EXPECT_EQ(answer("x.float()"), "float32 (x itself)");
  EXPECT_EQ(answer("x.type(torch.float32)"), "float32 (x itself)");
  EXPECT_EQ(answer("x.to(torch.float16)"), "float16");
  EXPECT_EQ(answer("m.half()"), "weight float16 (same Parameter objects)");
  EXPECT_EQ(answer("m.dtype = torch.float16"), "weight float32");
}

TEST(TorchSnippet, RefusesWhatItDoesNotModel) {
  EXPECT_FALSE(torch_snippet("x.abs()"));                             // exists, not a dtype change
  EXPECT_FALSE(torch_snippet("y.to(torch.float16)"));                 // unknown object
  EXPECT_FALSE(torch_snippet("x.to(torch.float16).half()"));          // a chain
  EXPECT_FALSE(torch_snippet("x.to(torch.float16"));                  // unbalanced
  EXPECT_FALSE(torch_snippet("x.to('cuda')"));                        // not a dtype argument
  EXPECT_FALSE(torch_snippet("x.nonexistent_attr = torch.float16"));  // a plain attribute: not modelled
}

}  // namespace
}  // namespace pl::promote
