# The library files compiled outside the unity batches (CMakeLists.txt, ONEMODEL_UNITY).
set(ONEMODEL_UNITY_ALONE
    core/ir/resolve.cpp
    core/onnx/parse_model.cpp
    optimized/ops/integer_depthwise.cpp
    optimized/ops/integer_requantize.cpp
    optimized/ops/op_matmul.cpp
    optimized/passes/constant_fold.cpp
    optimized/passes/conv_batchnorm_fold.cpp
    optimized/passes/gelu_fuse.cpp
    optimized/passes/linear_pack_fuse.cpp
    optimized/passes/qdq.cpp
    # New files alone, so adding them moves no file between batches.
    optimized/passes/matmul_integer_fusion.cpp
    optimized/passes/matmul_integer_to_float.cpp
    # The recurrent overrides (issue 15): new files, alone.
    optimized/ops/op_gru.cpp
    optimized/ops/op_lstm.cpp
    optimized/ops/op_rnn.cpp
    optimized/ops/recurrent_override.cpp
    optimized/ops/table_recurrent.cpp
    # The profiling hook (issue 15): new file, alone.
    optimized/runtime/node_profile.cpp
    # Shared packed weights (issue 15, memory): new file, alone.
    optimized/runtime/weight_packs.cpp
    # The self-gate pass and its node (issue 15): new files, alone.
    optimized/passes/self_gate_fuse.cpp
    optimized/passes/self_gate_op.cpp
    # The matmul-transpose pass and its node (issue 15): new files, alone.
    optimized/passes/matmul_transpose_fuse.cpp
    optimized/passes/transposed_matmul_op.cpp
    # The C interface (issue 16): new files, alone.
    core/c_api/c_errors.cpp
    core/c_api/c_session.cpp
    # CTC decoding (issue 16): new files, alone.
    core/ctc/ctc_beam.cpp
    core/ctc/ctc_checks.cpp
    core/ctc/ctc_error.cpp
    core/ctc/ctc_greedy.cpp
    core/ctc/ctc_math.cpp
    # The data-movement overrides (issue 15): new files, alone.
    optimized/ops/op_cast.cpp
    optimized/ops/op_compare.cpp
    optimized/ops/op_gather.cpp
    optimized/ops/op_pad.cpp
    optimized/ops/op_pow.cpp
    optimized/ops/op_slice.cpp
    optimized/ops/op_where.cpp
    # The BatchNormalization epilogue pass (issue 15): new file, alone.
    optimized/passes/conv_batchnorm_epilogue.cpp
    # The residual Add pass (issue 15): new file, alone.
    optimized/passes/conv_residual_fuse.cpp
    # Generated table and its check (issue 11): alone, so adding them moves no file between batches.
    reference/engine/input_signatures.cpp
    reference/engine/required_inputs.cpp
    reference/math/exact_log.cpp
    reference/ops/op_reduce_l2.cpp
    reference/ops/op_reduce_log_sum.cpp
    reference/ops/op_reduce_mean.cpp
    reference/ops/op_reduce_sum.cpp
    reference/ops/op_reduce_sum_square.cpp
    reference/ops/op_scatter_nd.cpp
    reference/ops/op_table.cpp
    # op_families.hpp declares shape_ops(), which a batch-mate's using-directive for the
    # namespace shape_ops makes ambiguous.
    reference/ops/table_attention.cpp
    reference/ops/table_control.cpp
    reference/ops/table_conv.cpp
    reference/ops/table_elementwise.cpp
    reference/ops/table_loss.cpp
    reference/ops/table_norm.cpp
    reference/ops/table_quant.cpp
    reference/ops/table_recurrent.cpp
    reference/ops/table_shape.cpp
    # The trigonometric and hyperbolic family (issue 17): new files, alone.
    reference/ops/op_acos.cpp
    reference/ops/op_acosh.cpp
    reference/ops/op_asin.cpp
    reference/ops/op_asinh.cpp
    reference/ops/op_atan.cpp
    reference/ops/op_atanh.cpp
    reference/ops/op_cosh.cpp
    reference/ops/op_sinh.cpp
    reference/ops/op_tan.cpp
    # Legacy opset 6 forms (issue 17): new files, alone.
    reference/ops/legacy_broadcast.cpp
    reference/ops/legacy_factories.cpp
    # The spectral family (issue 17): new files, alone.
    reference/ops/op_blackman_window.cpp
    reference/ops/op_dft.cpp
    reference/ops/op_hamming_window.cpp
    reference/ops/op_hann_window.cpp
    reference/ops/op_mel_weight_matrix.cpp
    reference/ops/op_stft.cpp
    reference/ops/spectral_window.cpp
    reference/ops/table_spectral.cpp
    # GridSample and AffineGrid (issue 17): new files, alone.
    reference/ops/op_affine_grid.cpp
    reference/ops/op_grid_sample.cpp
    # NonMaxSuppression (issue 17): new file, alone.
    reference/ops/op_non_max_suppression.cpp
    reference/ops/op_roi_align.cpp
    # The training optimizers (issue 17): new files, alone.
    reference/ops/op_adagrad.cpp
    reference/ops/op_adam.cpp
    reference/ops/op_momentum.cpp
    reference/ops/table_training.cpp
    # Operator breadth (issue 17, branch breadth): new files, alone.
    reference/ops/op_bit_cast.cpp
    reference/ops/op_center_crop_pad.cpp
    reference/ops/op_col2im.cpp
    reference/ops/op_compress.cpp
    reference/ops/op_einsum.cpp
    reference/ops/op_lp_pool.cpp
    reference/ops/op_lrn.cpp
    reference/ops/op_max_unpool.cpp
    reference/ops/op_reverse_sequence.cpp
    reference/ops/op_scatter.cpp
    reference/ops/op_swish.cpp
    reference/ops/op_tensor_scatter.cpp
    # FlexAttention (issue 17, branch attnexact): new file, alone.
    reference/ops/op_flex_attention.cpp
    reference/ops/op_unique.cpp
    # LinearAttention, CausalConvWithState, DeformConv (issue 17, branch newattn): new files, alone.
    reference/ops/op_causal_conv_with_state.cpp
    reference/ops/op_deform_conv.cpp
    reference/ops/op_linear_attention.cpp
    # ai.onnx.ml (issue 17): new files, alone.
    reference/ops/op_array_feature_extractor.cpp
    reference/ops/op_binarizer.cpp
    reference/ops/op_tree_ensemble.cpp
    reference/ops/table_ml.cpp
    # String tensors and the string operators (issue 17, branch strings): new files, alone.
    reference/ops/op_label_encoder.cpp
    reference/ops/op_regex_full_match.cpp
    reference/ops/op_string_concat.cpp
    reference/ops/op_string_normalizer.cpp
    reference/ops/op_string_split.cpp
    reference/ops/op_tf_idf_vectorizer.cpp
    reference/ops/re2_subset.cpp
    # The random operators (issue 17, session 14): new files, alone.
    reference/ops/op_bernoulli.cpp
    reference/ops/op_multinomial.cpp
    reference/ops/op_random.cpp
    reference/ops/random_draws.cpp
    reference/ops/random_fill.cpp
    reference/ops/table_random.cpp
    reference/ops/string_numbers.cpp
    reference/ops/table_strings.cpp
    # Exact trigonometric and hyperbolic functions (issue 17): new files, alone.
    reference/math/exact_hyperbolic.cpp
    reference/math/exact_inverse_trig.cpp
    reference/math/exact_trig.cpp
    # ImageDecoder and its decoders (issue 17): new files, alone.
    reference/image/bmp_decode.cpp
    reference/image/image_decode.cpp
    reference/image/png_decode.cpp
    reference/image/pnm_decode.cpp
    reference/image/tiff_decode.cpp
    reference/image/zlib_inflate.cpp
    reference/ops/op_image_decoder.cpp
    reference/ops/table_image.cpp
    # Exact binary64 exp and log (issue 17): new files, alone.
    reference/math/exact_exp64.cpp
    reference/math/exact_log64.cpp
    # Exact binary64 sin, cos, tan, atan, asin, acos (issue 17, branch f64trig): new files, alone.
    reference/math/exact_inverse_trig64.cpp
    reference/math/exact_trig64.cpp
    # Exact binary64 hyperbolic functions and erf (issue 17, branch f64hyp): new files, alone.
    reference/math/exact_hyperbolic64.cpp
    reference/math/exact_erf64.cpp
    # The 4- and 2-bit element types (issue 17, branch subbyte): new files, alone.
    core/tensor/subbyte.cpp
    reference/ops/cast_subbyte.cpp)
list(TRANSFORM ONEMODEL_UNITY_ALONE PREPEND ${CMAKE_SOURCE_DIR}/)
