; ModuleID = 'numba_ext'
source_filename = "numba_ext"
target triple = "spirv64-unknown-unknown"

define spir_kernel void @prange_nest(ptr addrspace(1) %a, i64 %0, i64 %1, i64 %2, i64 %3, i64 %4, ptr addrspace(1) %out, i64 %5, i64 %6, i64 %7, i64 %8, i64 %9, ptr addrspace(1) %w, i64 %10, i64 %11, i64 %12, i64 %13, i64 %14, i64 %15) {
entry:
  %l0 = alloca i64, align 8
  %l1 = alloca i64, align 8
  %l2 = alloca i64, align 8
  %l3 = alloca i64, align 8
  %l4 = alloca i64, align 8
  %l5 = alloca i64, align 8
  %l6 = alloca i1, align 1
  %l7 = alloca i64, align 8
  %l8 = alloca i64, align 8
  %l9 = alloca i64, align 8
  %l10 = alloca i64, align 8
  %l11 = alloca i64, align 8
  %l12 = alloca i64, align 8
  %l13 = alloca i64, align 8
  %l14 = alloca i64, align 8
  %l15 = alloca i1, align 1
  %l16 = alloca i64, align 8
  %l17 = alloca i64, align 8
  %l18 = alloca double, align 8
  %l19 = alloca double, align 8
  %l20 = alloca double, align 8
  %cstride = mul i64 8, %2
  %cstride1 = mul i64 8, %7
  store i64 %13, ptr %l0, align 4
  store i64 %14, ptr %l1, align 4
  store i64 %15, ptr %l2, align 4
  br label %b0

b0:                                               ; preds = %entry
  %call = call spir_func i64 @_Z13get_global_idj(i32 0)
  store i64 %call, ptr %l3, align 4
  %call2 = call spir_func i64 @_Z15get_global_sizej(i32 0)
  store i64 %call2, ptr %l4, align 4
  %v = load i64, ptr %l3, align 4
  store i64 %v, ptr %l5, align 4
  br label %b1

b1:                                               ; preds = %b0
  %v3 = load i64, ptr %l5, align 4
  %v4 = load i64, ptr %l2, align 4
  %cmp = icmp slt i64 %v3, %v4
  store i1 %cmp, ptr %l6, align 1
  %v5 = load i1, ptr %l6, align 1
  br i1 %v5, label %b2, label %b4

b2:                                               ; preds = %b1
  %v6 = load i64, ptr %l5, align 4
  store i64 %v6, ptr %l8, align 4
  %v7 = load i64, ptr %l8, align 4
  %add = add i64 %v7, 0
  store i64 %add, ptr %l9, align 4
  %v8 = load i64, ptr %l9, align 4
  store i64 %v8, ptr %l10, align 4
  br label %b5

b3:                                               ; preds = %b9
  br label %b4

b4:                                               ; preds = %b3, %b1
  ret void

b5:                                               ; preds = %b2
  store i64 %1, ptr %l11, align 4
  store i64 %2, ptr %l12, align 4
  %v9 = load i64, ptr %l12, align 4
  store i64 %v9, ptr %l13, align 4
  store i64 0, ptr %l14, align 4
  br label %b6

b6:                                               ; preds = %b8, %b5
  %v10 = load i64, ptr %l14, align 4
  %v11 = load i64, ptr %l13, align 4
  %cmp12 = icmp slt i64 %v10, %v11
  store i1 %cmp12, ptr %l15, align 1
  %v13 = load i1, ptr %l15, align 1
  br i1 %v13, label %b7, label %b9

b7:                                               ; preds = %b6
  %v14 = load i64, ptr %l14, align 4
  store i64 %v14, ptr %l17, align 4
  %v15 = load i64, ptr %l17, align 4
  store i64 %v15, ptr %l16, align 4
  br label %b10

b8:                                               ; preds = %b10
  %v16 = load i64, ptr %l14, align 4
  %add17 = add i64 %v16, 1
  store i64 %add17, ptr %l14, align 4
  br label %b6

b9:                                               ; preds = %b6
  br label %b3

b10:                                              ; preds = %b7
  %v18 = load i64, ptr %l10, align 4
  %v19 = load i64, ptr %l16, align 4
  %t = mul i64 %v18, %cstride
  %off = add i64 %0, %t
  %t20 = mul i64 %v19, 8
  %off21 = add i64 %off, %t20
  %p = getelementptr i8, ptr addrspace(1) %a, i64 %off21
  %ld = load double, ptr addrspace(1) %p, align 8
  store double %ld, ptr %l18, align 8
  %v22 = load i64, ptr %l10, align 4
  %t23 = mul i64 %v22, 8
  %off24 = add i64 %10, %t23
  %p25 = getelementptr i8, ptr addrspace(1) %w, i64 %off24
  %ld26 = load double, ptr addrspace(1) %p25, align 8
  store double %ld26, ptr %l19, align 8
  %v27 = load double, ptr %l18, align 8
  %v28 = load double, ptr %l19, align 8
  %mul = fmul double %v27, %v28
  store double %mul, ptr %l20, align 8
  %v29 = load i64, ptr %l10, align 4
  %v30 = load i64, ptr %l16, align 4
  %t31 = mul i64 %v29, %cstride1
  %off32 = add i64 %5, %t31
  %t33 = mul i64 %v30, 8
  %off34 = add i64 %off32, %t33
  %p35 = getelementptr i8, ptr addrspace(1) %out, i64 %off34
  %v36 = load double, ptr %l20, align 8
  store double %v36, ptr addrspace(1) %p35, align 8
  br label %b8
}

declare spir_func i64 @_Z13get_global_idj(i32)

declare spir_func i64 @_Z15get_global_sizej(i32)
